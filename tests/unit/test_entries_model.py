"""The entries table model: its own filter (full scan or narrowing) and sort agree with plain Python."""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Sequence

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.api.admin import Entry
from app.core.security.checks import index_of
from app.core.security.entry_search import EntrySearch
from app.core.security.entry_views import DAY_S as DAY
from app.core.security.entry_views import EntryView
from app.models.entries import (
    ADDRESS,
    COLUMNS,
    COVERS,
    EXPIRES,
    HITS,
    LAST_MATCHED,
    SIZE,
    EntriesModel,
)


def make_entries(count: int) -> list[Entry]:
    return [
        Entry(
            id=f"ipal_{i:04x}",
            cidr=f"10.{i // 256}.{i % 256}.0/24" if i % 3 else f"2001:db8:{i:x}::/48",
            description=f"site {i % 97} {'office' if i % 2 else 'lab'}",
            created_at=1_790_000_000 + i,
        )
        for i in range(count)
    ]


def shown(model: EntriesModel) -> list[str]:
    return [model.data(model.index(row, 0)) for row in range(model.rowCount())]


@pytest.fixture
def model(qapp: QApplication) -> EntriesModel:
    model = EntriesModel()
    entries = make_entries(2_000)
    model.set_entries(entries, ipaddress.ip_address("10.0.5.9"), index_of(entries))
    return model


def expected(entries: Sequence[Entry], needle: str) -> list[str]:
    return [e.cidr for e in entries if needle in f"{e.cidr}\n{e.description}".lower()]


def test_typing_narrows_and_deleting_widens_like_a_plain_filter(model: EntriesModel) -> None:
    entries = model.entries
    for text in (
        "s",
        "si",
        "site 4",
        "site 42",
        "site 42 l",
        "SITE 42 LAB",
        "site 4",
        "",
        "2001:DB8:1",
        "lab",
    ):
        model.set_filter(text)
        assert shown(model) == expected(entries, text.strip().lower()), text


def test_filter_keeps_the_sort_and_sort_keeps_the_filter(model: EntriesModel) -> None:
    model.sort(1, Qt.SortOrder.DescendingOrder)
    model.set_filter("office")
    descriptions = [model.entry(row).description for row in range(model.rowCount())]
    assert descriptions == sorted(descriptions, key=str.lower, reverse=True)
    assert all("office" in d for d in descriptions)
    model.sort(0, Qt.SortOrder.AscendingOrder)
    addresses = [ipaddress.ip_network(cidr) for cidr in shown(model)]
    assert addresses == sorted(addresses, key=lambda n: (n.version, n.network_address))
    assert len(addresses) == len(descriptions)


def test_cells_and_tooltip(model: EntriesModel) -> None:
    model.set_filter("10.0.5.0/24")
    assert model.rowCount() == 1
    row = [model.data(model.index(0, column)) for column in range(len(COLUMNS))]
    assert row[ADDRESS] == "10.0.5.0/24" and row[SIZE] == "256" and row[COVERS] == "✓ you"
    assert row[EXPIRES] == "" and row[HITS] == "0" and row[LAST_MATCHED] == "never"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole) == model.entry(0).id
    assert model.data(model.index(0, 1), Qt.ItemDataRole.ToolTipRole) is None
    assert model.data(model.index(0, 0), Qt.ItemDataRole.DecorationRole) is None


def test_address_counts_read_as_numbers(qapp: QApplication) -> None:
    model = EntriesModel()
    entries = [Entry(id="a", cidr="2001:db8::/48"), Entry(id="b", cidr="10.0.0.0/8")]
    model.set_entries(entries, None, index_of(entries))
    assert [model.data(model.index(row, SIZE)) for row in range(2)] == ["2⁸⁰", "16,777,216"]
    alignment = model.data(model.index(0, SIZE), Qt.ItemDataRole.TextAlignmentRole)
    assert alignment == Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
    assert model.data(model.index(0, 0), Qt.ItemDataRole.TextAlignmentRole) is None


def test_views_and_usage_columns_sort_and_filter(qapp: QApplication) -> None:
    """Expired, expiring and not-matched views combine with the text filter; Expires and Hits sort."""
    now = time.time()
    entries = [
        Entry(
            id="a", cidr="10.0.0.1/32", description="ci", expires_at=int(now - 10), created_at=now - 90 * DAY
        ),
        Entry(
            id="b",
            cidr="10.0.0.2/32",
            description="ci",
            expires_at=int(now + 3600),
            hit_count=5,
            created_at=now - DAY,
        ),
        Entry(
            id="c",
            cidr="10.0.0.3/32",
            description="office",
            created_at=now - 90 * DAY,
            hit_count=900,
            last_matched_at=int(now - 40 * DAY),
        ),
        Entry(
            id="d",
            cidr="10.0.0.4/32",
            description="office",
            created_at=now - 2 * DAY,
            hit_count=1,
            last_matched_at=int(now - 60),
        ),
    ]
    model = EntriesModel()
    model.set_entries(entries, None, index_of(entries))
    assert model.data(model.index(0, EXPIRES)) == "expired"
    assert model.data(model.index(1, EXPIRES)).startswith("in 59 min") or "1 h" in model.data(
        model.index(1, EXPIRES)
    )
    model.set_view(EntryView.EXPIRED)
    assert shown(model) == ["10.0.0.1/32"]
    model.set_view(EntryView.EXPIRING)
    assert shown(model) == ["10.0.0.1/32", "10.0.0.2/32"]
    model.set_view(EntryView.NOT_MATCHED, days=30)
    assert shown(model) == [
        "10.0.0.1/32",
        "10.0.0.3/32",
    ]  # d matched a minute ago; b is two days old? no: new
    model.set_filter("office")
    assert shown(model) == ["10.0.0.3/32"]
    model.set_filter("")
    model.set_view(EntryView.ALL)
    model.sort(HITS, Qt.SortOrder.DescendingOrder)
    assert shown(model) == ["10.0.0.3/32", "10.0.0.2/32", "10.0.0.4/32", "10.0.0.1/32"]
    model.sort(EXPIRES, Qt.SortOrder.AscendingOrder)
    assert shown(model)[:2] == ["10.0.0.1/32", "10.0.0.2/32"]  # the soonest first; never last


def test_rows_show_before_their_index_and_take_its_order_when_it_comes(qapp: QApplication) -> None:
    """The model never builds the index (the Security tab has it built off the GUI thread): without it the rows
    show in list order, sizes read from the cidr, nobody covered; `set_index` sorts them and marks coverage."""
    entries = make_entries(300)
    model = EntriesModel()
    model.sort(ADDRESS, Qt.SortOrder.AscendingOrder)
    me = ipaddress.ip_address("10.0.5.9")
    model.set_entries(entries, me)
    indexed_at_first = model.indexed
    assert not indexed_at_first and shown(model) == [e.cidr for e in entries]
    assert model.data(model.index(1, SIZE)) == "256" and not any(
        model.data(model.index(row, COVERS)) for row in range(model.rowCount())
    )
    model.set_filter("office")
    model.set_index(index_of(entries), me)
    addresses = [ipaddress.ip_network(cidr) for cidr in shown(model)]
    assert model.indexed and addresses == sorted(addresses, key=lambda n: (n.version, n.network_address))
    assert shown(model) and all("office" in model.entry(row).description for row in range(model.rowCount()))
    covered = [
        model.entry(row).cidr for row in range(model.rowCount()) if model.data(model.index(row, COVERS))
    ]
    assert covered == ["10.0.5.0/24"]


def test_keys_made_off_the_gui_thread_in_the_order_by_address_are_taken_as_they_are(
    qapp: QApplication,
) -> None:
    """The Security tab hands over the filter's keys made on the builder thread (AllowlistState.search_later):
    sorted by address, the model takes their order and keys and makes none; sorted otherwise, it sorts."""
    entries = make_entries(300)
    index = index_of(entries)
    search = EntrySearch(entries, index.address_order())
    me = ipaddress.ip_address("10.0.5.9")
    made_here, taken = EntriesModel(), EntriesModel()
    for model in (made_here, taken):
        model.sort(ADDRESS, Qt.SortOrder.AscendingOrder)
        model.set_entries(entries, me)
    made_here.set_index(index, me)
    taken.set_index(index, me, search)
    assert taken._search is search and shown(taken) == shown(made_here)
    for model in (made_here, taken):
        model.set_filter("site 4")
    assert shown(taken) == shown(made_here) and sorted(shown(taken)) == sorted(expected(entries, "site 4"))
    by_description = EntriesModel()
    by_description.sort(1, Qt.SortOrder.AscendingOrder)
    by_description.set_entries(entries, me, index, search)
    assert by_description._search is not search
    assert [by_description.entry(row).description for row in range(3)] == sorted(
        e.description for e in entries
    )[:3]
