"""The entries table's orders agree with a plain `sorted()` of the same entries: every column, both directions,
a long list sorted off the GUI thread in slices, and after entries are added or removed."""

from __future__ import annotations

import functools
import ipaddress
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.api.admin import Entry
from app.core.security import entry_order, entry_search
from app.core.security.checks import index_of
from app.core.security.entry_order import sorted_serials
from app.core.security.entry_search import EntrySearch
from app.models import entries as entries_model
from app.models.entries import COLUMNS, EntriesModel

ME = ipaddress.ip_address("10.0.5.9")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def make_entries(count: int, seed: int = 3) -> list[Entry]:
    """Distinct cidrs (ranges and the ranges inside them), and ties in every other column."""
    rng = random.Random(seed)
    made = [Entry(id="ipal_wide", cidr="10.0.0.0/8"), Entry(id="ipal_mid", cidr="10.0.0.0/16")]
    for i in range(count - len(made)):
        made.append(
            Entry(
                id=f"ipal_{i:05x}",
                cidr=f"2001:db8:{i:x}::/{rng.choice((48, 64))}"
                if i % 3 == 0
                else f"10.{i // 256}.{i % 256}.0/24",
                description=rng.choice(("Site 3 Office", "site 3 office", "Lab", "lab b", "Ärzte", "")),
                created_at=rng.choice((None, 1_790_000_000 + rng.randrange(50))),
                expires_at=rng.choice((None, 1_800_000_000 + rng.randrange(50))),
                hit_count=rng.randrange(5),
                last_matched_at=rng.choice((None, 0, 1_795_000_000 + rng.randrange(50))),
            )
        )
    return made


@functools.cache
def network_of(cidr: str) -> Network:
    """A cidr read once: the plain sorts below ask for each entry's network many times over."""
    return ipaddress.ip_network(cidr)


def plain_key(column: int) -> Callable[[Entry], Any]:
    """What each column sorts by, written plainly."""

    def network(entry: Entry) -> Network:
        return network_of(entry.cidr)

    return (
        lambda e: (network(e).version, network(e).network_address, network(e).prefixlen),
        lambda e: e.description.lower(),
        lambda e: float("inf") if e.expires_at is None else e.expires_at,
        lambda e: e.hit_count,
        lambda e: e.last_matched_at or 0,
        lambda e: e.created_at or 0,
        lambda e: network(e).max_prefixlen - network(e).prefixlen,
        lambda e: ME in network(e),
    )[column]


def plainly_sorted(entries: Sequence[Entry], column: int, descending: bool) -> list[str]:
    return [e.id for e in sorted(entries, key=plain_key(column), reverse=descending)]


def shown_ids(model: EntriesModel) -> list[str]:
    return [model.entry(row).id for row in range(model.rowCount())]


def sorted_by(qtbot: QtBot, model: EntriesModel, column: int, descending: bool) -> list[str]:
    """The rows once the model has them in a column's order (off the GUI thread for a long list)."""
    order = Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder
    with qtbot.waitSignal(model.arranged, timeout=10_000):
        model.sort(column, order)
    return shown_ids(model)


SLICE = 1_000  # the slices of 10,000 and the sorts on the GUI thread of up to 5,000, a tenth as long here
SORT_HERE_UP_TO = 500


@pytest.fixture
def sorts_made_off_the_gui_thread(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The table's thresholds a tenth as long, so a list a tenth as long takes the same paths; the runs
    sorted off the GUI thread, as (entries, slices), to see that they did."""
    monkeypatch.setattr(entries_model, "SORT_HERE_UP_TO", SORT_HERE_UP_TO)
    monkeypatch.setattr(entry_order, "_SLICE", SLICE)
    monkeypatch.setattr(entry_search, "_SLICE", SLICE)
    made: list[tuple[int, int]] = []

    def arrange_later(entries: Sequence[Entry], *rest: Any) -> Any:
        made.append((len(entries), -(-len(entries) // SLICE)))
        return later(entries, *rest)

    def in_slices(keys: Sequence[Any], descending: bool = False, slice_size: int = SLICE) -> list[int]:
        return sorted_serials(keys, descending, slice_size)

    later = entry_order.arrange_later
    monkeypatch.setattr(entries_model, "arrange_later", arrange_later)
    monkeypatch.setattr(entry_order, "sorted_serials", in_slices)
    return made


@pytest.mark.parametrize("slice_size", [1, 2, 7, 10_000])
def test_sorted_in_slices_and_merged_is_a_plain_stable_sort(slice_size: int) -> None:
    rng = random.Random(slice_size)
    for keys in ([rng.randrange(6) for _ in range(101)], [], [3], [float("inf"), 1, 1.5, 1]):
        for descending in (False, True):
            plain = sorted(range(len(keys)), key=keys.__getitem__, reverse=descending)
            assert sorted_serials(keys, descending, slice_size) == plain


def test_a_long_list_sorts_as_plain_python_by_every_column_both_ways(
    qtbot: QtBot, sorts_made_off_the_gui_thread: list[tuple[int, int]]
) -> None:
    entries = make_entries(2_300)  # past two slices: an odd number of sorted runs merged
    index = index_of(entries)
    model = EntriesModel()
    model.set_entries(entries, ME, index, EntrySearch(entries, index.address_order()))
    for column in range(len(COLUMNS)):
        for descending in (False, True):
            assert sorted_by(qtbot, model, column, descending) == plainly_sorted(
                entries, column, descending
            ), (
                COLUMNS[column],
                descending,
            )
    # Every column both ways sorted off the GUI thread, in three slices.
    assert sorts_made_off_the_gui_thread == [(2_300, 3)] * 2 * len(COLUMNS)


def test_the_order_holds_after_entries_are_added_or_removed(
    qtbot: QtBot, sorts_made_off_the_gui_thread: list[tuple[int, int]]
) -> None:
    """As the service shows a change's answer: a new list, one entry more or some fewer, in the same sort."""
    entries = make_entries(700)  # sorted off the GUI thread on a click, on it as a new list comes
    model = EntriesModel()
    model.set_entries(entries, ME, index_of(entries))
    for column in range(len(COLUMNS)):
        for descending in (False, True):
            sorted_by(qtbot, model, column, descending)
            added = [*entries, Entry(id="ipal_new", cidr="10.0.5.128/25", description="Site 3 office")]
            model.set_entries(added, ME, index_of(added))
            assert shown_ids(model) == plainly_sorted(added, column, descending), (
                COLUMNS[column],
                descending,
            )
            kept = [e for i, e in enumerate(added) if i % 5]
            model.set_entries(kept, ME, index_of(kept))
            assert shown_ids(model) == plainly_sorted(kept, column, descending), (COLUMNS[column], descending)
            assert sorted_by(qtbot, model, column, not descending) == plainly_sorted(
                kept, column, not descending
            )
    assert len(sorts_made_off_the_gui_thread) == 4 * len(COLUMNS)
    assert all(count > SORT_HERE_UP_TO for count, _ in sorts_made_off_the_gui_thread)


def test_a_short_list_sorts_at_once_and_a_filter_follows_a_long_one_s_sort(qtbot: QtBot) -> None:
    short = make_entries(300)
    model = EntriesModel()
    model.set_entries(short, ME, index_of(short))
    model.sort(1, Qt.SortOrder.DescendingOrder)  # no event loop needed
    assert shown_ids(model) == plainly_sorted(short, 1, True)
    entries = make_entries(8_000)
    model.set_entries(entries, ME, index_of(entries))
    model.set_filter("site 3")
    by_hits = sorted_by(qtbot, model, 3, False)
    matching = [e for e in entries if "site 3" in f"{e.cidr}\n{e.description}".lower()]
    assert by_hits == plainly_sorted(matching, 3, False) and matching
