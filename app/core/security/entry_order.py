"""The entries table's orders: the serials of a list's entries sorted by one column, and the filter's keys
copied in that order. Qt-free: a long list is sorted on the builder thread (`arrange_later`), so a click on a
column header of 100,000 entries does not hold the window.

Every step is a C call over at most a slice's worth of entries, or two sorted runs merged: a worker holds the
GIL through each C call and the GUI thread waits for it (docs/stack.md), so one `sorted` over the whole list
(20-50 ms at 100,000 entries) would block the window as if it ran there.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from enum import Enum
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from app.core.security.entry_search import EntrySearch
from app.core.security.state import BUILDER

if TYPE_CHECKING:
    from app.api.admin import Entry
    from app.netrules.index import EntryIndex

# Entries sorted this many at a time before the sorted runs are merged (see `sorted_serials`): a sort of
# 10,000 descriptions holds the GIL ~3 ms, a merge of two runs ~1 ms per 10,000 entries.
_SLICE = 10_000
_NEVER = float("inf")  # an entry that never expires sorts after every date


class SortColumn(Enum):
    """What the table can sort by: an entry's field, or what the entries' index knows (address, size)."""

    ADDRESS = "address"
    DESCRIPTION = "description"
    EXPIRES = "expires_at"
    HITS = "hit_count"
    LAST_MATCHED = "last_matched_at"
    CREATED = "created_at"
    SIZE = "size"
    COVERS = "covers"


@dataclass(frozen=True)
class Arranged:
    """A list's entries in one order: their serials and the filter's keys copied in that order."""

    entries: Sequence[Entry]
    order: list[int]
    search: EntrySearch


def sorted_serials(keys: Sequence[Any], descending: bool = False, slice_size: int = _SLICE) -> list[int]:
    """The serials of `keys` as `sorted(range(len(keys)), key=keys.__getitem__, reverse=descending)` gives
    them (stable: equal keys keep list order, descending too), sorted a slice at a time and merged in pairs.
    Timsort finds each sorted run whole, so a merge costs one comparison per entry, not a sort's log n."""
    key = keys.__getitem__
    runs = [
        sorted(range(start, min(start + slice_size, len(keys))), key=key, reverse=descending)
        for start in range(0, len(keys), slice_size)
    ]
    while len(runs) > 1:
        # Runs stay in list order: merging a run with the next keeps equal keys in list order.
        runs = [
            sorted(runs[i] + runs[i + 1], key=key, reverse=descending) if i + 1 < len(runs) else runs[i]
            for i in range(0, len(runs), 2)
        ]
    return runs[0] if runs else []


def field_keys(entries: Sequence[Entry], column: SortColumn) -> list[Any]:
    """Each entry's sort key for a column of its own fields, in list order, made a slice at a time."""
    keys: list[Any] = []
    get = attrgetter(column.value)
    for start in range(0, len(entries), _SLICE):
        values = list(map(get, entries[start : start + _SLICE]))
        if column is SortColumn.DESCRIPTION:
            keys += map(str.lower, values)
        elif column is SortColumn.EXPIRES:
            keys += [_NEVER if value is None else value for value in values]
        elif column in (SortColumn.LAST_MATCHED, SortColumn.CREATED):
            keys += [value or 0 for value in values]
        else:
            keys += values
    return keys


def serials_in_order(
    entries: Sequence[Entry],
    column: SortColumn,
    descending: bool,
    index: EntryIndex | None,
    covers: list[bool],
) -> list[int]:
    """The entries' serials sorted by `column`. Address and size need the entries' `index`; `covers`: whether
    each entry covers this console's address."""
    if column is SortColumn.ADDRESS:
        assert index is not None
        order = index.address_order()  # kept in address order by the index: no sort needed
        if descending:
            order.reverse()
        return order
    if column is SortColumn.SIZE:
        assert index is not None
        return sorted_serials(index.size_bits(), descending)
    keys = covers if column is SortColumn.COVERS else field_keys(entries, column)
    return sorted_serials(keys, descending)


def arranged(
    entries: Sequence[Entry],
    column: SortColumn,
    descending: bool,
    index: EntryIndex | None,
    covers: list[bool],
    search: EntrySearch | None,
) -> Arranged:
    """The entries in a column's order with the filter's keys in it (copied from `search`, the keys of these
    entries in any order, or made)."""
    order = serials_in_order(entries, column, descending, index, covers)
    keys = search.in_order(order) if search is not None else EntrySearch(entries, order)
    return Arranged(entries, order, keys)


def arrange_later(
    entries: Sequence[Entry],
    column: SortColumn,
    descending: bool,
    index: EntryIndex | None,
    covers: list[bool],
    search: EntrySearch | None,
) -> Future[Arranged]:
    """`arranged` on the builder thread, after the builds of the lists loaded before (their indexes)."""
    return BUILDER.submit(arranged, entries, column, descending, index, covers, search)
