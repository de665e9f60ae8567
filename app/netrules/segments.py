"""The gateway's lookup: the most specific entry holding an address, in one bisection.

CIDR blocks nest or do not meet, so the address space falls into disjoint segments over each of which the
same entries hold every address; a segment keeps the innermost of them, and each entry the one around it
(`outer`), so the holders are a short walk outward. A lookup is one `bisect`, narrowed by a table of the top
16 bits once the list is long, and needs no work per prefix length, which the hash-per-prefix-length
EntryIndex does (up to 33 or 129 dictionary lookups: 8 µs at 100,000 entries with many lengths).
Everything a lookup touches is a flat `array` where the values fit 64 bits: scattered int objects cost a
cache miss each, which is most of a lookup's time at 100,000 entries. The table is immutable: built from an
EntryIndex's sorted rows, off the request path for a long list; `with_block` gives a table with one more
block in work that grows with the segments the block covers (plus C-level copies of the arrays), so an
entry added to a long list needs no new sweep of it.
Hand-written because no maintained library answers "which of these CIDR blocks hold this address" over
Python ints with the holders' identities.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import MutableSequence, Sequence
from itertools import accumulate, repeat
from typing import Any

from .parse import Address

Row = tuple[int, int, int]  # (start, prefix length, serial), sorted by start then prefix
_BUCKET_BITS = 16
_BUCKETED_FROM = 4096  # below this a plain bisect is as fast, and the 65,537-slot table not worth building


class _Family:
    """The segments of one address family: segment i is [starts[i], starts[i + 1]), held innermost by
    `inner[i]` (a serial, or -1 for none). `bounds` is built with the table and kept as it is by
    `with_block`, whose added segments `slack` counts: the segments of bucket b are then among
    bounds[b] to bounds[b + 1] + slack (an added start only moves later ones on)."""

    __slots__ = ("bounds", "inner", "shift", "slack", "starts")

    def __init__(
        self, rows: Sequence[Row], bits: int, outer: MutableSequence[int], prefixes: MutableSequence[int]
    ) -> None:
        starts, inner = _segments(rows, bits, outer, prefixes)
        # 32-bit arrays where the values fit (IPv4 starts, serials, segment counts): half the cache lines of
        # 64-bit ones; IPv6 starts do not fit and stay Python ints.
        self.starts: Sequence[int] = array("I", starts) if bits <= 32 else starts
        self.inner = array("i", inner)
        self.shift = bits - _BUCKET_BITS
        self.slack = 0
        self.bounds: array[int] | None = None
        if len(starts) >= _BUCKETED_FROM:
            # bounds[b]: the index of the first segment starting in bucket b or later, i.e. how many
            # segments start in the buckets before b (counted in C, summed by accumulate)
            per_bucket = Counter(start >> self.shift for start in starts)
            counts = map(per_bucket.get, range(1 << _BUCKET_BITS), repeat(0))
            self.bounds = array("i", accumulate(counts, initial=0))


def _segments(
    rows: Sequence[Row], bits: int, outer: MutableSequence[int], prefixes: MutableSequence[int]
) -> tuple[list[int], list[int]]:
    """A sweep over the sorted rows (a block comes before those inside it); fills `outer` and `prefixes`
    by serial."""
    starts: list[int] = [0]
    inner: list[int] = [-1]
    around: list[
        tuple[int, int]
    ] = []  # (last address, serial) of the blocks around the sweep, innermost last
    top = (1 << bits) - 1

    def close_before(position: int) -> None:
        while around and around[-1][0] < position:
            last, _ = around.pop()
            if last == top:
                continue
            holder = around[-1][1] if around else -1
            if starts[-1] == last + 1:
                inner[-1] = holder
            else:
                starts.append(last + 1)
                inner.append(holder)

    for start, prefix, serial in rows:
        close_before(start)
        outer[serial] = around[-1][1] if around else -1
        prefixes[serial] = prefix
        if starts[-1] == start:
            inner[-1] = serial
        else:
            starts.append(start)
            inner.append(serial)
        around.append((start | ((1 << (bits - prefix)) - 1), serial))
    close_before(top + 1)
    return starts, inner


class SegmentTable:
    """Immutable. `innermost(address)` is the serial of the most specific entry holding it (-1 for none),
    `outer[serial]` the entry around that one (IPv4-mapped IPv6 addresses are looked up as the IPv4
    address they carry)."""

    __slots__ = ("outer", "prefixes", "v4", "v6")

    def __init__(self, rows_v4: Sequence[Row], rows_v6: Sequence[Row]) -> None:
        size = 1 + max((row[2] for rows in (rows_v4, rows_v6) for row in rows), default=-1)
        self.outer = array("i", repeat(-1, size))
        self.prefixes = array("B", bytes(size))  # each serial's prefix length: who holds whom
        self.v4 = _Family(rows_v4, 32, self.outer, self.prefixes)
        self.v6 = _Family(rows_v6, 128, self.outer, self.prefixes)

    def with_block(self, version: int, start: int, prefix: int, serial: int) -> SegmentTable:
        """A new table that is this one with the block `start`/`prefix` held by `serial`, a serial above
        every one in the table (a block equal to one there goes inside it, as the sweep puts a later serial).
        A serial left in the table after its entry went keeps its place: the caller's lookup passes over it.
        """
        outer = self.outer[:]  # copies in C: the gateway reads this table without a lock
        outer.extend(repeat(-1, serial + 1 - len(outer)))
        prefixes = self.prefixes[:]
        prefixes.extend(bytes(serial + 1 - len(prefixes)))
        prefixes[serial] = prefix
        table = SegmentTable.__new__(SegmentTable)
        table.outer, table.prefixes = outer, prefixes
        if version == 4:
            table.v4, table.v6 = _with_block(self.v4, 32, start, prefix, serial, outer, prefixes), self.v6
        else:
            table.v4, table.v6 = self.v4, _with_block(self.v6, 128, start, prefix, serial, outer, prefixes)
        return table

    @property
    def segments(self) -> int:
        return len(self.v4.starts) + len(self.v6.starts)

    @property
    def slack(self) -> int:
        """Segments added by `with_block` since the table was built (a lookup's bisection spans them too)."""
        return self.v4.slack + self.v6.slack

    def family(self, address: Address) -> tuple[_Family, int]:
        # The int ipaddress keeps in its __slots__ (int() goes through a Python-level __int__, ~0.3 µs);
        # the stubs do not declare the private slot.
        value: int = address._ip  # type: ignore[union-attr]
        if address.version == 4:
            return self.v4, value
        if value >> 32 == 0xFFFF:  # ::ffff:a.b.c.d
            return self.v4, value & 0xFFFFFFFF
        return self.v6, value

    def innermost(self, address: Address) -> int:
        family, value = self.family(address)
        return innermost(family, value)

    def chain(self, address: Address) -> tuple[int, ...]:
        """Every entry holding `address`, the most specific first."""
        serial, found = self.innermost(address), []
        while serial >= 0:
            found.append(serial)
            serial = self.outer[serial]
        return tuple(found)


def _with_block(
    family: _Family,
    bits: int,
    start: int,
    prefix: int,
    serial: int,
    outer: MutableSequence[int],
    prefixes: Sequence[int],
) -> _Family:
    """`family` with one more block, its segments split at the block's edges; sets `outer` for the new
    serial and for the blocks directly inside it (`outer` is the new table's copy)."""
    starts, inner = family.starts, family.inner
    last = start | ((1 << (bits - prefix)) - 1)
    first = bisect_right(starts, start) - 1  # the segment holding the block's start
    stop = bisect_right(starts, last)  # past the segment holding its last address
    # The block around the new one: the innermost holder of its start that is not inside it.
    parent = inner[first]
    while parent >= 0 and prefixes[parent] > prefix:
        parent = outer[parent]
    outer[serial] = parent
    new_starts, new_inner = list(starts[first:stop]), list(inner[first:stop])
    if new_starts[0] != start:
        new_starts.insert(1, start)
        new_inner.insert(1, new_inner[0])
    if last != (1 << bits) - 1 and (stop == len(starts) or starts[stop] != last + 1):
        new_starts.append(last + 1)
        new_inner.append(new_inner[-1])
    inside = range(1 if new_starts[0] != start else 0, len(new_starts) - (new_starts[-1] > last))
    seen: set[int] = set()
    for position in inside:
        holder = new_inner[position]
        if holder == parent:  # held by no block inside the new one: the new one is innermost there
            new_inner[position] = serial
            continue
        while holder >= 0 and holder not in seen:  # up to the block directly inside the new one
            seen.add(holder)
            if outer[holder] == parent:
                outer[holder] = serial
                break
            holder = outer[holder]
    added = _Family.__new__(_Family)
    if isinstance(starts, array):
        added.starts = starts[:first] + array(starts.typecode, new_starts) + starts[stop:]
    else:
        added.starts = [*starts[:first], *new_starts, *starts[stop:]]
    added.inner = inner[:first] + array("i", new_inner) + inner[stop:]
    added.shift, added.bounds = family.shift, family.bounds
    added.slack = family.slack + len(new_starts) - (stop - first)
    return added


def innermost(family: Any, value: int) -> int:
    """The innermost holder of `value` in one family (written for the hot path: locals only)."""
    bounds = family.bounds
    if bounds is None:
        return int(family.inner[bisect_right(family.starts, value) - 1])
    bucket = value >> family.shift
    low = bounds[bucket]
    index = bisect_right(family.starts, value, low, bounds[bucket + 1] + family.slack) - 1
    return int(family.inner[index if index >= low else low - 1])
