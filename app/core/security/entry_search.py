"""Which entries a filter text matches: the entries table's search over 100,000 entries, on every keystroke.

Each entry's search key (its cidr and description, lowercased) is made once per list, and copied once per
display order into fresh strings allocated in that order, so that a keystroke's scan reads memory front to
back (a third faster than following references scattered by a sort). The scan is one pass in C (`compress`
over `map(contains, …)`): no Python bytecode per entry. Qt-free: a long list's keys are made on a worker
thread, in the order by address the table shows first (see AllowlistState.search_later).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import copy
from itertools import compress, repeat
from operator import add, and_, attrgetter, contains
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.admin import Entry

_KEY = "{}\n{}"  # a needle is stripped: it never holds the line break, so it cannot match across the two
_END = "\0"  # between two keys in one string (see _lowered)
# Keys are made this many at a time: each C-level pass holds the GIL for its whole length, and built on a
# worker thread (see AllowlistState.search_later) one pass over 100,000 entries held the GUI thread ~50 ms.
_SLICE = 10_000


class EntrySearch:
    """The search keys of a list's entries, in list order and in one display order."""

    def __init__(self, entries: Sequence[Entry], order: list[int] | None = None) -> None:
        """`order`: the entries' serials (positions in `entries`) in display order; None: list order."""
        self.entries = entries
        # Made in list order, then copied in `order`: read in display order, the entries' strings lie
        # scattered, and making the keys took twice as long (100,000 entries: ~190 ms of CPU, not ~90).
        self._by_serial: list[str] = []
        for start in range(0, len(entries), _SLICE):
            part = entries[start : start + _SLICE]
            cidrs, descriptions = map(attrgetter("cidr"), part), map(attrgetter("description"), part)
            self._by_serial += _lowered(list(cidrs), list(descriptions))
        self.order, self._keys = list(range(len(entries))), self._by_serial
        if order is not None:
            self._arrange(order)

    def in_order(self, order: list[int]) -> EntrySearch:
        """The same keys in another display order (a sort): copied, not made again from the entries."""
        search = copy(self)
        search._arrange(order)
        return search

    def _arrange(self, order: list[int]) -> None:
        keys: list[str] = []
        for start in range(0, len(order), _SLICE):
            keys += _copied(list(map(self._by_serial.__getitem__, order[start : start + _SLICE])))
        self.order, self._keys = order, keys

    def matching(self, needle: str, shown: list[bool] | None = None) -> list[int]:
        """The serials, in display order, of the entries whose cidr or description holds `needle` (lowercase,
        non-empty), among those `shown` flags (display order; None: all)."""
        matches = map(contains, self._keys, repeat(needle))
        if shown is not None:
            matches = map(and_, matches, shown)
        return list(compress(self.order, matches))

    def narrowed(self, serials: list[int], needle: str) -> list[int]:
        """Those of `serials` (display order) that hold `needle`: typing on, only the rows shown can match.
        Worth it when they are few: it picks keys out by serial, slower per entry than `matching`'s scan."""
        keys = map(self._by_serial.__getitem__, serials)
        return list(compress(serials, map(contains, keys, repeat(needle))))


def _lowered(cidrs: list[str], descriptions: list[str]) -> list[str]:
    """Each entry's key, lowercased. Made as one string (each cidr, a line break, its description, then a
    NUL), lowered and split at the NULs: three C calls, where a `format` and a `lower` per entry took a third
    longer. Lowering the whole is lowering each, as a line break or a NUL ends the context of any case rule
    (a final sigma); a description holding a NUL has the keys of its slice made one by one."""
    pieces = [_END] * (4 * len(cidrs))
    pieces[0::4], pieces[1::4], pieces[2::4] = cidrs, ["\n"] * len(cidrs), descriptions
    keys = "".join(pieces[:-1]).lower().split(_END)
    if len(keys) == len(cidrs):
        return keys
    return list(map(str.lower, map(_KEY.format, cidrs, descriptions)))


def _copied(keys: list[str]) -> list[str]:
    """New strings equal to `keys`, allocated one after another: joined and split again (a third of the time
    of a copy each, which reads strings scattered by a sort one at a time); a key holding a NUL (see
    `_lowered`) has its slice copied one by one, "\n" added (`+ ""` would hand back the same string)."""
    copies = _END.join(keys).split(_END)
    return copies if len(copies) == len(keys) else list(map(add, keys, repeat("\n")))
