"""The gateway's lookup: which entries hold an address, innermost first, in one bisection.

CIDR blocks nest or do not meet, so the address space falls into disjoint segments over each of which the
set of holding entries is the same; a segment keeps that set as a chain of serials, the longest prefix
first. A lookup is one `bisect` (narrowed by a table of the top 16 bits once the list is long: a plain
bisect over 200,000 boxed ints is dominated by cache misses) and needs no work per prefix length, which
the hash-per-prefix-length EntryIndex does (up to 33 or 129 dictionary lookups). The table is immutable:
built from an EntryIndex's sorted rows, off the request path for a long list, and replaced after a change.
Hand-written because no maintained library answers "which of these CIDR blocks hold this address" over
Python ints with the holders' identities.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from ipaddress import IPv4Address
from itertools import accumulate, repeat

from .parse import Address

Chain = tuple[int, ...]  # serials of the entries holding a segment, the most specific first
_NONE: Chain = ()
_BUCKET_BITS = 16
_BUCKETED_FROM = 4096  # below this a plain bisect is as fast, and the 65,537-slot table not worth building


class _Family:
    """The segments of one address family: segment i is [starts[i], starts[i + 1])."""

    __slots__ = ("bounds", "chains", "shift", "starts")

    def __init__(self, rows: Sequence[tuple[int, int, int]], bits: int) -> None:
        self.starts, self.chains = _segments(rows, bits)
        self.shift = bits - _BUCKET_BITS
        self.bounds: list[int] | None = None
        if len(self.starts) >= _BUCKETED_FROM:
            # bounds[b]: the index of the first segment starting in bucket b or later, i.e. how many
            # segments start in the buckets before b (counted in C, summed by accumulate)
            per_bucket = Counter(start >> self.shift for start in self.starts)
            self.bounds = list(
                accumulate(map(per_bucket.get, range(1 << _BUCKET_BITS), repeat(0)), initial=0)
            )

    def chain(self, value: int) -> Chain:
        bounds = self.bounds
        if bounds is None:
            return self.chains[bisect_right(self.starts, value) - 1]
        bucket = value >> self.shift
        low = bounds[bucket]
        index = bisect_right(self.starts, value, low, bounds[bucket + 1]) - 1
        return self.chains[index if index >= low else low - 1]


def _segments(rows: Sequence[tuple[int, int, int]], bits: int) -> tuple[list[int], list[Chain]]:
    """A sweep over rows (start, prefix, serial) sorted by start then prefix (a block before those inside it)."""
    starts: list[int] = [0]
    chains: list[Chain] = [_NONE]
    open_blocks: list[tuple[int, Chain]] = []  # (last address, chain) of the blocks around the sweep
    top = (1 << bits) - 1

    def close_before(position: int) -> None:
        while open_blocks and open_blocks[-1][0] < position:
            last, _ = open_blocks.pop()
            if last == top:
                continue
            outer = open_blocks[-1][1] if open_blocks else _NONE
            if starts[-1] == last + 1:
                chains[-1] = outer
            else:
                starts.append(last + 1)
                chains.append(outer)

    for start, prefix, serial in rows:
        close_before(start)
        chain = (serial, *(open_blocks[-1][1] if open_blocks else _NONE))
        if starts[-1] == start:
            chains[-1] = chain
        else:
            starts.append(start)
            chains.append(chain)
        open_blocks.append((start | ((1 << (bits - prefix)) - 1), chain))
    close_before(top + 1)
    return starts, chains


class SegmentTable:
    """Immutable; `chain(address)` is the serials holding it, most specific first (IPv4-mapped IPv6
    addresses are looked up as the IPv4 address they carry)."""

    __slots__ = ("_v4", "_v6")

    def __init__(
        self, rows_v4: Sequence[tuple[int, int, int]], rows_v6: Sequence[tuple[int, int, int]]
    ) -> None:
        self._v4 = _Family(rows_v4, 32)
        self._v6 = _Family(rows_v6, 128)

    def chain(self, address: Address) -> Chain:
        # The gateway's hot path: locals only, no call to `unmapped` (a method call costs ~0.1 µs here).
        value = int(address)
        if type(address) is IPv4Address:
            return self._v4.chain(value)
        if value >> 32 == 0xFFFF:
            return self._v4.chain(value & 0xFFFFFFFF)
        return self._v6.chain(value)
