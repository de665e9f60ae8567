"""An index over a large allowlist (100,000 entries): the entries related to a range, the entries holding an
address, and the entry nearest to it, in time that grows with the answer rather than with the list.

CIDR blocks either nest or do not meet. So the blocks holding a point are found by masking the point to
each prefix length present on the list (at most 33 or 129 dictionary lookups), and the blocks inside a range
by a bisection over the sorted starts. Adding or removing an entry touches one dictionary slot and one
sorted row. `ipaddress` has no index; no maintained library does this for Python's address types, hence by
hand.
"""

from __future__ import annotations

import ipaddress
import socket
from bisect import bisect_left, bisect_right, insort
from collections.abc import Iterable, Sequence
from typing import Any

from .analysis import Finding, Relation
from .parse import Address, Network, unmapped

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
    """The entries of one list, each known by its serial (its position in the list, then in order added).

    The one membership structure of the project: the console asks it about loaded lists, the sandbox's
    gateway asks `contains` on every request, and the sandbox adds and removes entries in place (a removed
    entry's serial is not reused), so a change costs the same at 10 entries as at 100,000.
    """

    def __init__(self) -> None:
        self.intervals: list[Interval | None] = []  # by serial; None for a cidr that could not be read
        self.labels: list[str | None] = []  # by serial: the entry's id, or what names an added network
        self._rows: dict[int, list[tuple[int, int, int]]] = {4: [], 6: []}  # (start, prefix, serial), sorted
        # Per family, prefix length -> the block's leading `prefix` bits -> serials of the entries that are it.
        self._blocks: dict[int, dict[int, dict[int, list[int]]]] = {4: {}, 6: {}}
        self._removed: set[int] = set()
        self._left_reach: dict[int, list[int]] = {}  # per family, the furthest end up to each row; lazily

    @classmethod
    def of_entries(cls, entries: Iterable[dict[str, Any]]) -> EntryIndex:
        """The index of the service's entries as decoded JSON ({"id", "cidr", …}), labelled by id."""
        entries = list(entries)
        return cls.of_cidrs([entry["cidr"] for entry in entries], [entry.get("id") for entry in entries])

    @classmethod
    def of_cidrs(cls, cidrs: Sequence[str], labels: Sequence[str | None]) -> EntryIndex:
        """The index of canonical cidrs, each with its label (the entry's id). Comprehensions, not a
        loop of appends: this is built again whenever a list of 100,000 entries is loaded."""
        index = cls()
        intervals = index.intervals = [interval_of(cidr) for cidr in cidrs]
        index.labels = list(labels)
        for version, bits in BITS.items():
            rows = [(iv[1], iv[2], serial) for serial, iv in enumerate(intervals) if iv and iv[0] == version]
            rows.sort()
            index._rows[version] = rows
            blocks = index._blocks[version]
            for start, prefix, serial in rows:  # sorted rows: each block's serials come in ascending order
                by_start = blocks.get(prefix)
                if by_start is None:
                    by_start = blocks[prefix] = {}
                serials = by_start.setdefault(start >> (bits - prefix), [])
                serials.append(serial)
        return index

    def add(self, network: Network, label: str | None) -> int:
        """Index one more network (an import's accepted line, an entry added); returns its serial."""
        version, start, prefix = network.version, int(network.network_address), network.prefixlen
        serial = len(self.intervals)
        self.intervals.append((version, start, prefix))
        self.labels.append(label)
        insort(self._rows[version], (start, prefix, serial))
        by_start = self._blocks[version].setdefault(prefix, {})
        by_start.setdefault(start >> (BITS[version] - prefix), []).append(serial)
        self._left_reach.pop(version, None)
        return serial

    def remove(self, serial: int) -> None:
        """Forget one entry; the other serials keep their meaning."""
        if serial in self._removed:
            return
        self._removed.add(serial)
        interval = self.intervals[serial]
        self.intervals[serial] = None
        self.labels[serial] = None
        if interval is None:
            return
        version, start, prefix = interval
        rows = self._rows[version]
        del rows[bisect_left(rows, (start, prefix, serial))]
        blocks = self._blocks[version]
        key = start >> (BITS[version] - prefix)
        serials = blocks[prefix][key]
        serials.remove(serial)
        if not serials:
            del blocks[prefix][key]
            if not blocks[prefix]:
                del blocks[prefix]
        self._left_reach.pop(version, None)

    def rows(self) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """Copies of the sorted (start, prefix, serial) rows of IPv4 and IPv6: a SegmentTable's input."""
        return list(self._rows[4]), list(self._rows[6])

    @property
    def removed(self) -> int:
        """How many serials stand for removed entries (the sandbox rebuilds past a point)."""
        return len(self._removed)

    def _block(self, version: int, start: int, prefix: int) -> list[int]:
        """The serials of the entries that are exactly this block."""
        by_start = self._blocks[version].get(prefix)
        serials = by_start.get(start >> (BITS[version] - prefix)) if by_start else None
        return list(serials) if serials else []

    def address_order(self) -> list[int]:
        """Serials by address: unreadable entries, then IPv4, then IPv6, each range before those inside it.
        The rows are sorted already, so this costs no sort."""
        removed = self._removed
        unreadable = [s for s, interval in enumerate(self.intervals) if interval is None and s not in removed]
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

    def contains(self, address: Address) -> bool:
        """Whether any entry holds `address`: the gateway's question, at most one lookup per prefix length."""
        version, value = _family_value(address)
        bits = BITS[version]
        for prefix, by_start in self._blocks[version].items():  # noqa: SIM110 (a loop beats any() on the hot path)
            if value >> (bits - prefix) in by_start:
                return True
        return False

    def holding(self, address: Address) -> list[int]:
        """The serials of the entries that hold `address`, in list order."""
        version, value = _family_value(address)
        bits = BITS[version]
        serials: list[int] = []
        for prefix, by_start in self._blocks[version].items():
            serials += by_start.get(value >> (bits - prefix), ())
        return sorted(serials)

    def holders(self, address: Address) -> list[str]:
        """The labels (entry ids) of the entries that hold `address`, in list order."""
        labels = self.labels
        return [labels[serial] or "" for serial in self.holding(address)]

    def relate(self, new: Network) -> list[Finding]:
        """As `analysis.relate(new, every entry)`, in list order, without walking the list."""
        version, start, prefix = new.version, int(new.network_address), new.prefixlen
        found: list[tuple[int, Relation]] = []
        for other in list(self._blocks[version]):
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
            # a serial in the rows always has its interval (None only for cidrs never put in a row)
            candidates.append((value - end_of(self.intervals[reach]), reach))  # type: ignore[arg-type]
        return min(candidates)[1]

    def _reach(self, version: int) -> list[int]:
        """For each sorted row, the serial of the row up to it whose block ends furthest."""
        reach = self._left_reach.get(version)
        if reach is None:
            reach, best, best_end = [], -1, -1
            for _start, _prefix, serial in self._rows[version]:
                end = end_of(self.intervals[serial])  # type: ignore[arg-type]  # in a row: never None
                if end > best_end:
                    best, best_end = serial, end
                reach.append(best)
            self._left_reach[version] = reach
        return reach


def _family_value(address: Address) -> tuple[int, int]:
    address = unmapped(address)
    return address.version, int(address)
