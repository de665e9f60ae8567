"""What applying a policy file would change on one list: entries added, removed and changed, the switch,
and whether the result would lock this machine out, decided from the list as read (its version kept, so
the change is made on exactly that version or not at all).

An entry is the same entry when its canonical address is: a new description or expiry changes it in
place. An entry of the file whose expiry has passed is wanted by nobody: not added, and removed if listed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.netrules import Address, EntryError, parse_address, parse_entry, unmapped

from .policy_file import ListPolicy, PolicyEntry

if TYPE_CHECKING:
    from app.api.admin import Allowlist, Entry
    from app.api.allowlist_changes import BatchParams

LOCKOUT_MARGIN = 60  # seconds: an entry expiring within this never counts as covering this machine


@dataclass(frozen=True)
class Changed:
    before: Entry
    after: PolicyEntry


@dataclass(frozen=True)
class ListPlan:
    policy: ListPolicy
    project_id: str | None
    version: str | None  # of the list as read: the change is sent on it (If-Match)
    enabled_before: bool
    enabled_after: bool
    add: tuple[PolicyEntry, ...] = ()
    remove: tuple[Entry, ...] = ()
    change: tuple[Changed, ...] = ()
    source_ip: str | None = None
    locks_out: bool = False
    evidence: dict[str, Any] = field(default_factory=dict)  # entry id -> what it admitted (policy_evidence)

    @property
    def label(self) -> str:
        return self.policy.label

    @property
    def changes(self) -> bool:
        return bool(self.add or self.remove or self.change) or self.enabled_before != self.enabled_after

    def batch(self) -> BatchParams:
        params: BatchParams = {}
        if self.enabled_after != self.enabled_before:
            params["enabled"] = self.enabled_after
        if self.add:
            params["add"] = [
                {"cidr": e.cidr, "description": e.description, "expires_at": e.expires_at} for e in self.add
            ]
        if self.change:
            params["update"] = [
                {"id": c.before.id, "description": c.after.description, "expires_at": c.after.expires_at}
                for c in self.change
            ]
        if self.remove:
            params["remove"] = [entry.id for entry in self.remove]
        return params


def _covers(cidrs: Iterable[tuple[str, int | None]], address: Address, after: float) -> bool:
    for cidr, expires_at in cidrs:
        if expires_at is not None and expires_at <= after:
            continue
        try:
            network = parse_entry(cidr)
        except EntryError:
            continue
        if network.version == address.version and address in network:
            return True
    return False


def locks_out(
    enabled_before: bool,
    before: Iterable[tuple[str, int | None]],
    enabled_after: bool,
    after: Iterable[tuple[str, int | None]],
    source_ip: str | None,
    now: float,
) -> bool:
    """Whether the list as it would be refuses an address the list as it is admits (the service's own
    lockout guard, decided here first so that the plan can say so)."""
    if not enabled_after:
        return False
    try:
        address = unmapped(parse_address(source_ip)) if source_ip else None
    except EntryError:
        address = None
    if address is None:
        return not enabled_before
    margin = now + LOCKOUT_MARGIN
    admitted_before = not enabled_before or _covers(before, address, margin)
    return admitted_before and not _covers(after, address, margin)


def plan_list(
    policy: ListPolicy, current: Allowlist, project_id: str | None, now: float | None = None
) -> ListPlan:
    """The changes that make `current` what `policy` says."""
    now = time.time() if now is None else now
    wanted = {e.cidr: e for e in policy.entries if e.expires_at is None or e.expires_at > now}
    have = {entry.cidr: entry for entry in current.entries}
    add = tuple(entry for cidr, entry in wanted.items() if cidr not in have)
    remove = tuple(entry for cidr, entry in have.items() if cidr not in wanted)
    change = tuple(
        Changed(entry, wanted[cidr])
        for cidr, entry in have.items()
        if cidr in wanted
        and (entry.description != wanted[cidr].description or entry.expires_at != wanted[cidr].expires_at)
    )
    enabled_after = current.enabled if policy.enabled is None else policy.enabled
    blocked = locks_out(
        current.enabled,
        ((entry.cidr, entry.expires_at) for entry in current.entries),
        enabled_after,
        ((entry.cidr, entry.expires_at) for entry in wanted.values()),
        current.source_ip,
        now,
    )
    return ListPlan(
        policy,
        project_id,
        current.version,
        current.enabled,
        enabled_after,
        add,
        remove,
        change,
        current.source_ip,
        blocked,
    )


def _when(expires_at: int | None) -> str:
    if expires_at is None:
        return "never expires"
    return "expires " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires_at))


def plan_lines(plan: ListPlan) -> list[str]:
    """The plan of one list for a person: one line a change, `+` added, `-` removed, `~` changed."""
    if not plan.changes:
        return [f"{plan.label}: no change."]
    lines = [f"{plan.label} (version {plan.version or 'unknown'}):"]
    if plan.enabled_before != plan.enabled_after:
        lines.append(f"  ~ switch the list {'on' if plan.enabled_after else 'off'}")
    lines += [
        f"  + {e.cidr}  {e.description}  ({_when(e.expires_at)})".replace("    ", "  ") for e in plan.add
    ]
    for entry in plan.remove:
        lines.append(
            f"  - {entry.cidr}  {entry.description}  ({entry.hit_count:,} hits)".replace("    ", "  ")
        )
        lines += [f"      {line}" for line in plan.evidence.get(entry.id, {}).get("lines", ())]
    for changed in plan.change:
        before, after = changed.before, changed.after
        what = []
        if before.description != after.description:
            what.append(f"description {before.description!r} -> {after.description!r}")
        if before.expires_at != after.expires_at:
            what.append(f"{_when(before.expires_at)} -> {_when(after.expires_at)}")
        lines.append(f"  ~ {before.cidr}  {'; '.join(what)}")
    if plan.locks_out:
        lines.append(
            f"  ! this would lock this machine ({plan.source_ip or 'an unknown address'}) out of the API"
        )
    return lines


def plan_json(plan: ListPlan) -> dict[str, Any]:
    return {
        "list": "organization" if plan.policy.project is None else "project",
        "project": plan.policy.project,
        "project_id": plan.project_id,
        "version": plan.version,
        "enabled": {"before": plan.enabled_before, "after": plan.enabled_after},
        "add": [{"cidr": e.cidr, "description": e.description, "expires_at": e.expires_at} for e in plan.add],
        "remove": [
            {
                "id": e.id,
                "cidr": e.cidr,
                "description": e.description,
                "hit_count": e.hit_count,
                "last_matched_at": e.last_matched_at,
                **({"evidence": plan.evidence[e.id]["data"]} if e.id in plan.evidence else {}),
            }
            for e in plan.remove
        ],
        "change": [
            {
                "id": c.before.id,
                "cidr": c.before.cidr,
                "before": {"description": c.before.description, "expires_at": c.before.expires_at},
                "after": {"description": c.after.description, "expires_at": c.after.expires_at},
            }
            for c in plan.change
        ],
        "changes": plan.changes,
        "locks_out": plan.locks_out,
        "source_ip": plan.source_ip,
    }
