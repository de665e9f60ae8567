"""Which entries the Security tab's view shows besides the text filter: all, expired, expiring (expired or
within a day), or not matched in N days (stale: no request admitted by it since, or ever). Qt-free."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING

from app.core.security.expiry import EXPIRING_SOON_S

if TYPE_CHECKING:
    from app.api.admin import Entry

DAY_S = 86_400


class EntryView(StrEnum):
    ALL = "all"
    EXPIRED = "expired"
    EXPIRING = "expiring"  # expired, or expiring within a day
    NOT_MATCHED = "not_matched"  # no request admitted by it in the last N days

    @property
    def label(self) -> str:
        return {
            EntryView.ALL: "All entries",
            EntryView.EXPIRED: "Expired",
            EntryView.EXPIRING: "Expired or expiring within a day",
            EntryView.NOT_MATCHED: "Not matched in N days",
        }[self]


def shown_by(view: EntryView, entries: Sequence[Entry], now: float, days: int = 30) -> list[bool] | None:
    """One flag per entry (list order), or None for "all". An entry made less than N days ago and never
    matched is not stale yet: it has not had the time."""
    if view is EntryView.ALL:
        return None
    if view is EntryView.EXPIRED:
        return [e.expired or (e.expires_at is not None and e.expires_at <= now) for e in entries]
    if view is EntryView.EXPIRING:
        soon = now + EXPIRING_SOON_S
        return [e.expired or (e.expires_at is not None and e.expires_at <= soon) for e in entries]
    since = now - days * DAY_S
    return [(e.last_matched_at or e.created_at or 0) < since for e in entries]
