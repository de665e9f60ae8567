"""Fast membership: is an address inside any of a set of ranges?

Ranges are merged per family into sorted, disjoint [start, end] integer intervals; a lookup is one
`bisect`. Past a few thousand intervals a table indexed by the top 16 bits narrows the bisect to a
handful of neighbours: a plain bisect over 100,000 boxed ints is dominated by cache misses.
"""

from __future__ import annotations

import ipaddress
from bisect import bisect_right
from collections.abc import Iterable
from ipaddress import IPv4Address

from .parse import Address, Network


def _merge(intervals: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    intervals.sort()
    starts: list[int] = []
    ends: list[int] = []
    for start, end in intervals:
        if ends and start <= ends[-1] + 1:
            if end > ends[-1]:
                ends[-1] = end
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


_BUCKET_BITS = 16
_BUCKETED_FROM = 4096  # below this a plain bisect is as fast, and the 64k-slot table not worth building


class _Family:
    __slots__ = ("bounds", "ends", "shift", "starts")

    def __init__(self, intervals: list[tuple[int, int]], bits: int) -> None:
        self.starts, self.ends = _merge(intervals)
        self.shift = bits - _BUCKET_BITS
        self.bounds: list[int] | None = None
        if len(self.starts) >= _BUCKETED_FROM:
            # bounds[b] = index of the first interval starting in bucket b or later
            bounds = [0] * ((1 << _BUCKET_BITS) + 1)
            index = 0
            starts, shift = self.starts, self.shift
            for bucket in range(1 << _BUCKET_BITS):
                while index < len(starts) and (starts[index] >> shift) < bucket:
                    index += 1
                bounds[bucket] = index
            bounds[-1] = len(starts)
            self.bounds = bounds


class RangeMatcher:
    """Immutable matcher over a set of networks; build a new one when the entries change."""

    __slots__ = ("_v4", "_v6", "count")

    def __init__(self, networks: Iterable[Network]) -> None:
        v4: list[tuple[int, int]] = []
        v6: list[tuple[int, int]] = []
        for network in networks:
            start = int(network.network_address)
            bits = network.max_prefixlen
            interval = (start, start | ((1 << (bits - network.prefixlen)) - 1))
            (v4 if bits == 32 else v6).append(interval)
        self.count = len(v4) + len(v6)
        self._v4 = _Family(v4, 32)
        self._v6 = _Family(v6, 128)

    def contains(self, address: Address) -> bool:
        # The gateway's hot path: one call, locals only (a method call costs ~0.1 µs here).
        value = int(address)
        if type(address) is IPv4Address:
            family = self._v4
        elif value >> 32 == 0xFFFF:  # ::ffff:a.b.c.d is compared as IPv4 (CONTRACT.md)
            family, value = self._v4, value & 0xFFFFFFFF
        else:
            family = self._v6
        bounds = family.bounds
        if bounds is None:
            index = bisect_right(family.starts, value) - 1
        else:
            bucket = value >> family.shift
            low = bounds[bucket]
            index = bisect_right(family.starts, value, low, bounds[bucket + 1]) - 1
            if index < low:
                index = low - 1
        return index >= 0 and value <= family.ends[index]

    def __contains__(self, address: object) -> bool:
        if isinstance(address, str):
            address = ipaddress.ip_address(address)
        return isinstance(address, ipaddress.IPv4Address | ipaddress.IPv6Address) and self.contains(address)
