"""Expiring entries, Qt-free: "expires in" as people write it (2h, 1d, a date), and the time left as they read it.

An entry's `expires_at` is Unix seconds, like `created_at`; the gateway stops admitting by it at that second.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
GUARD_MARGIN_S = 60  # an entry that expires within the next minute never counts as covering the caller
EXPIRING_SOON_S = 86_400  # "expiring" in the table's filter: within a day


class ExpiryError(ValueError):
    """The text is neither a duration nor a date; the message says what is accepted."""


def ends_soon(expires_at: float | None, now: float) -> bool:
    """Whether an entry expires within the guard's margin (or has expired): it covers nobody for long."""
    return expires_at is not None and expires_at - now <= GUARD_MARGIN_S


def parse_duration(text: str) -> float:
    """Seconds in "90s", "30m", "2h", "1d", "1w" (ExpiryError otherwise)."""
    found = _DURATION.match(text)
    if not found:
        raise ExpiryError(f"'{text}' is not a duration: write a number and a unit (s, m, h, d, w), e.g. 2h.")
    seconds = float(found.group(1)) * UNITS[found.group(2).lower()]
    if seconds <= 0:
        raise ExpiryError("The duration must be longer than zero.")
    return seconds


def parse_expires(text: str, now: float) -> int:
    """`expires_at` (Unix seconds) for "2h" from `now`, or for an ISO 8601 date or time (UTC unless it says)."""
    text = text.strip()
    try:
        return int(now + parse_duration(text))
    except ExpiryError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ExpiryError(
            f"'{text}' is neither a duration (2h, 1d, 1w) nor a date (2026-12-31 or 2026-12-31T18:00Z)."
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    at = int(moment.timestamp())
    if at <= now:
        raise ExpiryError(f"{text} is in the past.")
    return at


def describe_left(seconds: float) -> str:
    """The time left in at most two units: "45 s", "12 min", "3 h 20 min", "2 d 4 h"."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(hours, 24)
    return f"{days} d {hours} h" if hours else f"{days} d"


@dataclass(frozen=True)
class ExpiryState:
    """How an entry stands against the clock, for the table's column and filter."""

    never: bool
    expired: bool
    left: float  # seconds (0 once expired; inf for never)

    @property
    def text(self) -> str:
        if self.never:
            return ""
        return "expired" if self.expired else describe_left(self.left)

    @property
    def expiring(self) -> bool:
        """Expired, or expiring within a day."""
        return not self.never and self.left <= EXPIRING_SOON_S


def expiry_state(expires_at: float | None, now: float) -> ExpiryState:
    if expires_at is None:
        return ExpiryState(True, False, float("inf"))
    left = max(0.0, expires_at - now)
    return ExpiryState(False, left <= 0, left)
