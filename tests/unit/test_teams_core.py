"""The Qt-free parts of the teams work: "expires in" as typed, the time left, what changed under you, and
History's merge of the two sources."""

from __future__ import annotations

import pytest

from app.api.admin import Allowlist, Entry
from app.core.security.concurrency import ListDiff
from app.core.security.expiry import ExpiryError, describe_left, ends_soon, parse_expires
from app.core.security.history_rows import HistoryRow, Source, merged

NOW = 1_800_000_000.0


def test_expires_as_people_write_it() -> None:
    assert parse_expires("2h", NOW) == NOW + 7200
    assert parse_expires("90s", NOW) == NOW + 90 and parse_expires("1w", NOW) == NOW + 604_800
    assert parse_expires("2027-06-01T00:00+00:00", NOW) == 1_811_808_000  # a date, in UTC unless it says
    for bad in ("soon", "0h", "2026-01-01", "-3h"):
        with pytest.raises(ExpiryError):
            parse_expires(bad, NOW)


def test_time_left_in_two_units_and_the_guards_margin() -> None:
    assert [describe_left(s) for s in (45, 720, 12_000, 3 * 86_400 + 7200)] == [
        "45 s",
        "12 min",
        "3 h 20 min",
        "3 d 2 h",
    ]
    assert ends_soon(NOW + 59, NOW) and not ends_soon(NOW + 61, NOW) and not ends_soon(None, NOW)


def test_what_changed_under_you() -> None:
    shown = Allowlist(
        enabled=False, entries=(Entry(id="a", cidr="10.0.0.0/8"), Entry(id="b", cidr="192.0.2.0/24"))
    )
    current = Allowlist(
        enabled=True,
        entries=(Entry(id="a", cidr="10.0.0.0/8", expires_at=5), Entry(id="c", cidr="203.0.113.0/24")),
    )
    diff = ListDiff.between(shown, current)
    assert diff.lines() == [
        "+ added 203.0.113.0/24",
        "− removed 192.0.2.0/24",
        "~ changed 10.0.0.0/8",
        "switched on",
    ]
    assert ListDiff.between(shown, shown).empty


def row(at: float, source: Source, what: str) -> HistoryRow:
    return HistoryRow(at, source, "", "Organization", "add", what, "ok", True)


def test_history_merges_by_time_and_pages_back_without_gaps() -> None:
    console = [
        row(10, Source.CONSOLE, "c10"),
        row(30, Source.CONSOLE, "c30"),
        row(30, Source.CONSOLE, "c30b"),
    ]
    service = [row(40, Source.SERVICE, "s40"), row(30, Source.SERVICE, "s30"), row(20, Source.SERVICE, "s20")]
    page = merged(console, service, service_complete=False)
    assert [r.what for r in page] == ["s40", "c30b", "c30", "s30", "s20"]  # c10 waits for an older page
    assert [r.what for r in merged(console, service, service_complete=True)][-1] == "c10"
