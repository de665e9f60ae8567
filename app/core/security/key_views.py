"""Keys as a person reads them, without Qt: "never" or "3 days ago", which keys went unused for N days, a
permission typed on a form or a command line, and the object `--json` prints for a key."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.api.keys import ApiKey

ENDPOINT_GROUPS = ("models", "responses", "conversations", "organizations")
DAY = 86_400
_UNITS = (
    (365 * DAY, "year"),
    (30 * DAY, "month"),
    (7 * DAY, "week"),
    (DAY, "day"),
    (3600, "hour"),
    (60, "minute"),
)


class PermissionsInvalid(ValueError):
    """A permission that is none of "all", "read_only" or a list of endpoint groups."""


def ago(timestamp: int | None, now: float) -> str:
    """ "never" for None, "just now" under a minute, else the largest whole unit: "3 days ago"."""
    if timestamp is None:
        return "never"
    seconds = max(0.0, now - timestamp)
    for size, unit in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "just now"


def date_text(timestamp: int | None) -> str:
    return "" if timestamp is None else datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")


def quiet_since(key: ApiKey) -> int | None:
    """When the key was last seen: its last use, else its creation."""
    return key.last_used_at if key.last_used_at is not None else key.created_at


def unused_for(keys: Iterable[ApiKey], days: float, now: float) -> list[ApiKey]:
    """The keys not used for `days` days (one never used counts from its creation)."""
    limit = now - days * DAY
    return [key for key in keys if (quiet_since(key) or 0) <= limit]


def parse_permissions(text: str) -> str | list[str]:
    """ "all", "read_only" (or "read-only"), or endpoint groups separated by commas: "models,responses"."""
    cleaned = text.strip().lower().replace("-", "_")
    if cleaned in ("all", "read_only"):
        return cleaned
    groups = sorted({part.strip() for part in cleaned.split(",") if part.strip()})
    unknown = [group for group in groups if group not in ENDPOINT_GROUPS]
    if not groups or unknown:
        raise PermissionsInvalid(
            f"“{text}” is not a permission: use all, read_only, or endpoints among {', '.join(ENDPOINT_GROUPS)}."
        )
    return groups


def permissions_text(permissions: str | Iterable[str]) -> str:
    if isinstance(permissions, str):
        return {"all": "all", "read_only": "read only"}.get(permissions, permissions)
    return ", ".join(permissions)


def successor_name(key: ApiKey) -> str:
    """The name a rotated key's successor takes: the old one's, so scripts that look keys up by name find
    it; a key without a name gives its successor one that says whose it is."""
    return key.name or f"successor of {key.id}"


def key_json(key: ApiKey) -> dict[str, Any]:
    """A key for `--json`: what the list shows, never a value."""
    return {
        "id": key.id,
        "name": key.name,
        "kind": key.kind,
        "project_id": key.project_id,
        "redacted_value": key.redacted_value,
        "owner": key.owner_name,
        "created_at": key.created_at,
        "last_used_at": key.last_used_at,
        "request_count": key.request_count,
        "permissions": key.permissions if isinstance(key.permissions, str) else list(key.permissions),
    }
