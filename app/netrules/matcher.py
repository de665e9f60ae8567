"""Fast membership: is an address inside any of a set of ranges?

Ranges are merged per family into sorted, disjoint [start, end] integer intervals; a lookup is one
`bisect` (O(log n)), so 100,000 entries cost about as much as 100.
"""

from __future__ import annotations

import ipaddress
from bisect import bisect_right
from collections.abc import Iterable

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


class RangeMatcher:
    """Immutable matcher over a set of networks; build a new one when the entries change."""

    __slots__ = ("_v4_ends", "_v4_starts", "_v6_ends", "_v6_starts", "count")

    def __init__(self, networks: Iterable[Network]) -> None:
        v4: list[tuple[int, int]] = []
        v6: list[tuple[int, int]] = []
        count = 0
        for network in networks:
            start = int(network.network_address)
            interval = (start, start + network.num_addresses - 1)
            (v4 if network.version == 4 else v6).append(interval)
            count += 1
        self.count = count
        self._v4_starts, self._v4_ends = _merge(v4)
        self._v6_starts, self._v6_ends = _merge(v6)

    def contains_int(self, value: int, version: int) -> bool:
        starts, ends = (self._v4_starts, self._v4_ends) if version == 4 else (self._v6_starts, self._v6_ends)
        index = bisect_right(starts, value) - 1
        return index >= 0 and value <= ends[index]

    def contains(self, address: Address) -> bool:
        if address.version == 6:
            mapped = address.ipv4_mapped  # type: ignore[union-attr]
            if mapped is not None:
                address = mapped
        return self.contains_int(int(address), address.version)

    def __contains__(self, address: object) -> bool:
        if isinstance(address, str):
            address = ipaddress.ip_address(address)
        return isinstance(address, ipaddress.IPv4Address | ipaddress.IPv6Address) and self.contains(address)
