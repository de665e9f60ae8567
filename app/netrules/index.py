"""An index over a large allowlist (100,000 entries): the entries related to a range, the entries holding an
address, and the entry nearest to it, in time that grows with the answer rather than with the list.

CIDR blocks either nest or do not meet. So the blocks holding a point are found by masking the point to
each prefix length present on the list (at most 33 or 129 dictionary lookups), and the blocks inside a range
by a bisection over the sorted starts. `ipaddress` has no index, and `RangeMatcher` answers only yes or no;
no maintained library does this for Python's address types, hence by hand.
"""

from __future__ import annotations

import ipaddress
import socket
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable
from typing import Any

from .analysis import Finding, Relation
from .parse import Address, Network

BITS = {4: 32, 6: 128}
Interval = tuple[int, int, int]  # (version, start, prefix length)


def interval_of(cidr: str) -> Interval | None:
    """(version, start, prefix) of a canonical 'address/prefix' as the service returns it, None if it is not.

    inet_pton (C) rather than ipaddress: 100,000 entries are read in a fraction of the time.
    """
    address, _, prefix = cidr.partition("/")
    family, version = (socket.AF_INET6, 6) if ":" in address else (socket.AF_INET, 4)
    try:
        start = int.from_bytes(socket.inet_pton(family, address), "big")
        length = int(prefix) if prefix else BITS[version]
    except (OSError, ValueError):
        return None
    return (version, start, length) if 0 <= length <= BITS[version] else None


def end_of(interval: Interval) -> int:
    version, start, prefix = interval
    return start | ((1 << (BITS[version] - prefix)) - 1)


def _masked(version: int, value: int, prefix: int) -> int:
    bits = BITS[version]
    return value >> (bits - prefix) << (bits - prefix)


class EntryIndex:
    """The entries of one list, each known by its serial (its position in the list, then in order added)."""

    def __init__(self) -> None:
        self.intervals: list[Interval | None] = []  # by serial; None for a cidr that could not be read
        self.labels: list[str | None] = []  # by serial: the entry's id, or what names an added network
        self._rows: dict[int, list[tuple[int, int, int]]] = {4: [], 6: []}  # (start, prefix, serial), sorted
        self._prefixes: dict[int, set[int]] = {4: set(), 6: set()}
        self._left_reach: dict[int, list[int]] = {}  # per family, the furthest end up to each row; lazily

    @classmethod
    def of_entries(cls, entries: Iterable[dict[str, Any]]) -> EntryIndex:
        """The index of the service's entries ({"id", "cidr", …}), labelled by id. Comprehensions, not a
        loop of appends: this is built again whenever a list of 100,000 entries is loaded."""
        index = cls()
        entries = list(entries)
        intervals = index.intervals = [interval_of(entry["cidr"]) for entry in entries]
        index.labels = [entry.get("id") for entry in entries]
        for version in BITS:
            rows = [(iv[1], iv[2], serial) for serial, iv in enumerate(intervals) if iv and iv[0] == version]
            rows.sort()
            index._rows[version] = rows
            index._prefixes[version] = {prefix for _start, prefix, _serial in rows}
        return index

    def add(self, network: Network, label: str | None) -> int:
        """Index one more network (an import's accepted line); returns its serial."""
        version, start, prefix = network.version, int(network.network_address), network.prefixlen
        serial = len(self.intervals)
        self.intervals.append((version, start, prefix))
        self.labels.append(label)
        insort(self._rows[version], (start, prefix, serial))
        self._prefixes[version].add(prefix)
        self._left_reach.pop(version, None)
        return serial

    def _block(self, version: int, start: int, prefix: int) -> list[int]:
        """The serials of the entries that are exactly this block (a bisection: rows sort by block)."""
        rows = self._rows[version]
        position = bisect_left(rows, (start, prefix))
        serials = []
        while position < len(rows) and rows[position][0] == start and rows[position][1] == prefix:
            serials.append(rows[position][2])
            position += 1
        return serials

    def address_order(self) -> list[int]:
        """Serials by address: unreadable entries, then IPv4, then IPv6, each range before those inside it.
        The rows are sorted already, so this costs no sort."""
        unreadable = [serial for serial, interval in enumerate(self.intervals) if interval is None]
        return unreadable + [row[2] for row in self._rows[4]] + [row[2] for row in self._rows[6]]

    def network(self, serial: int) -> Network:
        interval = self.intervals[serial]
        assert interval is not None
        version, start, prefix = interval
        kind = ipaddress.IPv4Network if version == 4 else ipaddress.IPv6Network
        return kind((start, prefix))

    # -- questions --------------------------------------------------------------------------------

    def find(self, network: Network) -> int | None:
        """The serial of the first entry that is exactly `network`, or None."""
        serials = self._block(network.version, int(network.network_address), network.prefixlen)
        return min(serials) if serials else None

    def holding(self, address: Address) -> list[int]:
        """The serials of the entries that hold `address`, in list order."""
        version, value = _family_value(address)
        serials: list[int] = []
        for prefix in self._prefixes[version]:
            serials += self._block(version, _masked(version, value, prefix), prefix)
        return sorted(serials)

    def relate(self, new: Network) -> list[Finding]:
        """As `analysis.relate(new, every entry)`, in list order, without walking the list."""
        version, start, prefix = new.version, int(new.network_address), new.prefixlen
        found: list[tuple[int, Relation]] = []
        for other in self._prefixes[version]:
            if other <= prefix:  # the blocks holding `new`, or equal to it
                relation = Relation.DUPLICATE if other == prefix else Relation.COVERED_BY
                found += [
                    (serial, relation)
                    for serial in self._block(version, _masked(version, start, other), other)
                ]
        # Inside `new`: a longer prefix starting within its range (an aligned block cannot straddle it).
        rows = self._rows[version]
        low = bisect_left(rows, (start, prefix + 1))
        high = bisect_right(rows, (end_of((version, start, prefix)), BITS[version] + 1))
        found += [(serial, Relation.COVERS) for _start, _prefix, serial in rows[low:high]]
        found.sort()
        return [Finding(relation, self.network(serial), self.labels[serial]) for serial, relation in found]

    def nearest(self, address: Address) -> int | None:
        """The serial of the entry of the same family whose range lies closest to `address`, or None."""
        version, value = _family_value(address)
        holding = self.holding(address)
        if holding:
            return holding[0]
        rows = self._rows[version]
        if not rows:
            return None
        position = bisect_right(rows, (value, BITS[version] + 1))
        candidates: list[tuple[int, int]] = []  # (distance, serial)
        if position < len(rows):  # the first block starting after the address
            candidates.append((rows[position][0] - value, rows[position][2]))
        if position > 0:  # of the blocks starting before it, the one reaching furthest (none reaches it)
            reach = self._reach(version)[position - 1]
            candidates.append((value - end_of(self.intervals[reach]), reach))  # type: ignore[arg-type]
        return min(candidates)[1]

    def _reach(self, version: int) -> list[int]:
        """For each sorted row, the serial of the row up to it whose block ends furthest."""
        reach = self._left_reach.get(version)
        if reach is None:
            reach, best, best_end = [], -1, -1
            for _start, _prefix, serial in self._rows[version]:
                end = end_of(self.intervals[serial])  # type: ignore[arg-type]
                if end > best_end:
                    best, best_end = serial, end
                reach.append(best)
            self._left_reach[version] = reach
        return reach


def _family_value(address: Address) -> tuple[int, int]:
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.version, int(address)
