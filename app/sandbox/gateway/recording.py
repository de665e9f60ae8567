"""What the gateway tells the store's traffic record (store/traffic.py) about a request the allowlists
refused or admitted: which list refused, the source, the path, the second. Counted in memory only."""

from __future__ import annotations

from app.netrules import Address
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.traffic import Traffic


def record_refusal(
    traffic: Traffic,
    owners: tuple[str | None, str | None],
    source_ip: Address | None,
    seen: str,
    path: str,
    organization: AllowlistRecord | None,
    project: AllowlistRecord | None,
    now: int,
) -> None:
    """Count one refusal, naming the list that refused ("organization", "project" or "both")."""
    if source_ip is None:  # refused by every list that is on (an empty list is falsy: `is not None`)
        by_organization, by_project = organization is not None, project is not None
    else:
        by_organization = organization is not None and organization.match(source_ip, now) < 0
        by_project = project is not None and project.match(source_ip, now) < 0
    which = "both" if by_organization and by_project else "organization" if by_organization else "project"
    source = seen if source_ip is not None else "unknown"
    org_id, project_id = owners  # the project the key names, whichever list refused
    traffic.refused(org_id or "", project_id, which, source, path, now)


def record_admission(traffic: Traffic, active: tuple[AllowlistRecord, ...], seen: str, now: int) -> None:
    for allowlist in active:
        traffic.admitted(allowlist.scope, allowlist.owner_id, seen, now)


def count_admitted(
    traffic: Traffic, matched: tuple[tuple[AllowlistRecord, int], ...], seen: str, now: int
) -> None:
    """Admitted past the key and the rate limits: the entries that admitted it count it (hit_count), and
    its source (for the dry run's evidence, store/traffic.py)."""
    for record, serial in matched:
        record.count(serial, now)
    if matched:
        record_admission(traffic, tuple(record for record, _ in matched), seen, now)
