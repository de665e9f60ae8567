"""The time ranges of the Usage tab (UTC): today, the last 7 or 30 days, this month, or custom days; each
with its bucket width (hours for a range of two days or less, days beyond) and the period before it, of the
same length, that the chart shows beside it."""

from __future__ import annotations

import calendar
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import Enum

HOUR = 3600
DAY = 86_400
HOURLY_UP_TO = 2 * DAY  # a longer range in hours is too many bars to read


class RangeKind(Enum):
    TODAY = "Today"
    WEEK = "7 days"
    MONTH_30 = "30 days"
    THIS_MONTH = "This month"
    CUSTOM = "Custom"


@dataclass(frozen=True)
class TimeRange:
    """[start, end) in Unix seconds, read in buckets of `width` seconds."""

    start: int
    end: int
    width: int

    @property
    def width_name(self) -> str:
        """The usage endpoint's `bucket_width`."""
        return "1h" if self.width == HOUR else "1d"

    @property
    def buckets(self) -> list[int]:
        return list(range(self.start, self.end, self.width))

    def previous(self) -> TimeRange:
        """The period just before, of the same length and width."""
        length = self.end - self.start
        return TimeRange(self.start - length, self.start, self.width)


def _midnight(day: date) -> int:
    return calendar.timegm(day.timetuple())


def time_range(kind: RangeKind, now: int, first: date | None = None, last: date | None = None) -> TimeRange:
    """The range `kind` names at `now`; CUSTOM is whole days from `first` to `last`, both included."""
    today = datetime.fromtimestamp(now, UTC).date()
    if kind is RangeKind.CUSTOM:
        if first is None or last is None:
            raise ValueError("A custom range needs its first and last day.")
        if last < first:
            raise ValueError("The range's last day is before its first.")
        start, end = _midnight(first), _midnight(last + timedelta(days=1))
    elif kind is RangeKind.TODAY:
        start, end = _midnight(today), _midnight(today + timedelta(days=1))
    elif kind is RangeKind.THIS_MONTH:
        start, end = _midnight(today.replace(day=1)), _midnight(today + timedelta(days=1))
    else:
        days = 7 if kind is RangeKind.WEEK else 30
        start, end = _midnight(today - timedelta(days=days - 1)), _midnight(today + timedelta(days=1))
    width = HOUR if end - start <= HOURLY_UP_TO else DAY
    return TimeRange(start, end, width)


def bucket_label(start: int, width: int) -> str:
    """A bucket's label on the chart's axis and in the table: `14:00` for an hour, `Nov 28` for a day."""
    moment = datetime.fromtimestamp(start, UTC)
    return moment.strftime("%H:%M") if width == HOUR else moment.strftime("%b %d")
