"""One allowlist entry as the store holds it, and the usage counted on it since the last flush."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EntryRecord:
    id: str
    cidr: str
    description: str
    created_at: int
    expires_at: int | None = None
    hit_count: int = 0  # as flushed to the store; the list adds what it counted since
    last_matched_at: int | None = None

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    def state(self) -> dict[str, Any]:
        """What the audit log records of the entry before or after a change."""
        return {
            "id": self.id,
            "cidr": self.cidr,
            "description": self.description,
            "expires_at": self.expires_at,
        }

    def as_json(self, now: float, hits: int = 0, last_matched_at: int | None = None) -> dict[str, Any]:
        last = self.last_matched_at if last_matched_at is None else last_matched_at
        return {
            "object": "ip_allowlist.entry",
            "id": self.id,
            "cidr": self.cidr,
            "description": self.description,
            "created_at": self.created_at,
            "expires_at": self.expires_at,
            "expired": self.expired(now),
            "hit_count": self.hit_count + hits,
            "last_matched_at": last,
        }


@dataclass(frozen=True)
class EntryUsage:
    """Requests admitted by one entry since the last flush, and the second of the latest."""

    entry_id: str
    hits: int
    last_matched_at: int
