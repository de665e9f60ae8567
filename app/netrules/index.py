"""An index over a large allowlist (100,000 entries): the entries related to a range, the entries holding an
address, and the entry nearest to it, in time that grows with the answer rather than with the list.

CIDR blocks either nest or do not meet. So the blocks holding a point are found by masking the point to
each prefix length present on the list (at most 33 or 129 dictionary lookups), and the blocks inside a range
by a bisection over the sorted starts. Adding or removing an entry touches one dictionary slot and one
sorted row. `ipaddress` has no index; no maintained library does this for Python's address types, hence by
hand, over plain ints.

Built again on every load of a 100,000-entry list, so the build runs in C-level `map`s, `sort` and `dict`
over ints packed into one int per entry (a row key: start, prefix length, serial), never a Python object or
a loop iteration per entry: about half the CPU time of per-entry tuples and dictionaries (measured by
tests/perf/bench_matcher, same run).
"""

from __future__ import annotations

import ipaddress
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import compress, count, repeat
from operator import and_, ge, itemgetter, lshift, lt, not_, or_, rshift, sub
from typing import Any

from .analysis import Finding, Relation
from .intervals import BITS, Columns, Interval, end_of, interval_of, read_with_blocks
from .parse import Address, Network, unmapped

__all__ = ["BITS", "EntryIndex", "Interval", "end_of", "interval_of"]

# A row key packs (start, prefix length, serial) into one int that sorts as the tuple would:
# start << 40 | prefix << 32 | serial.
_SERIAL = (1 << 32) - 1
_START = 40
_PREFIX_BITS = [prefix << 32 for prefix in range(129)]  # a prefix length where a row key holds it
_NEXT_NAME = 1 << 32  # from a block's first possible row key to the next block's (its serials between)
_WIDTHS = (32, 128)  # indexed by "is IPv6"
Row = tuple[int, int, int]  # (start, prefix, serial), what rows() gives the SegmentTable


def block_key(value: int, host_bits: int, prefix: int) -> int:
    """The block of `prefix` leading bits holding `value`, as one int: those bits under a marker bit
    (1 << prefix), so that blocks of different lengths never share a key. Two operations per probe."""
    return value >> host_bits | 1 << prefix


class _Family:
    """The entries of one address family: sorted row keys, and block -> its first serial for point lookups."""

    __slots__ = ("bits", "blocks", "keys", "lengths", "probes")

    def __init__(
        self,
        bits: int,
        starts: list[int],
        prefixes: list[int],
        serials: list[int],
        blocks: list[int] | None = None,
    ) -> None:
        """`serials` ascending (list order); `blocks`: each entry's `block_key`, if the caller has them."""
        self.bits = bits
        low = map(or_, map(_PREFIX_BITS.__getitem__, prefixes), serials)  # prefix << 32 | serial
        self.keys = keys = list(map(or_, map(lshift, starts, repeat(_START)), low))
        keys.sort()
        if blocks is None:
            host_bits = list(map(sub, repeat(bits), prefixes))
            blocks = list(map(or_, map(rshift, starts, host_bits), map(lshift, repeat(1), prefixes)))
        # Reversed, so that of a block listed twice the first serial is the one kept. The others sit beside
        # it in the sorted keys, where `serials` finds them: nothing is made for them here.
        self.blocks: dict[int, int] = dict(zip(reversed(blocks), reversed(serials), strict=True))
        self.lengths: Counter[int] | None = None  # prefix length -> entries; counted at the first change
        self.probes: list[tuple[int, int]] = []
        self._reprobe(set(prefixes))

    def _reprobe(self, lengths: Iterable[int]) -> None:
        """(host bits, marker) per prefix length present: what contains() masks with."""
        self.probes = [(self.bits - p, 1 << p) for p in sorted(lengths)]

    def _lengths(self) -> Counter[int]:
        if self.lengths is None:
            self.lengths = Counter(map(and_, map(rshift, self.keys, repeat(32)), repeat(255)))
        return self.lengths

    def serials(self, block: int) -> list[int]:
        """The serials of the entries that are exactly `block`, ascending: its run of sorted keys."""
        if block not in self.blocks:
            return []
        prefix = block.bit_length() - 1  # under the marker bit, the block's network bits
        named = ((block ^ 1 << prefix) << (self.bits - prefix) << 8 | prefix) << 32  # its first possible key
        keys = self.keys
        run = keys[bisect_left(keys, named) : bisect_left(keys, named + _NEXT_NAME)]
        return list(map(and_, run, repeat(_SERIAL)))

    def add(self, start: int, prefix: int, serial: int) -> None:
        lengths = self._lengths()  # counted before the change
        insort(self.keys, (start << 8 | prefix) << 32 | serial)
        self.blocks.setdefault(block_key(start, self.bits - prefix, prefix), serial)  # serials only grow
        lengths[prefix] += 1
        if lengths[prefix] == 1:
            self._reprobe(lengths)

    def remove(self, start: int, prefix: int, serial: int) -> None:
        lengths = self._lengths()  # counted before the change
        keys = self.keys
        name = start << 8 | prefix
        position = bisect_left(keys, name << 32 | serial)
        del keys[position]
        block = block_key(start, self.bits - prefix, prefix)
        if self.blocks[block] == serial:  # the block's first entry: the next of its run, if any, is first now
            if position < len(keys) and keys[position] >> 32 == name:
                self.blocks[block] = keys[position] & _SERIAL
            else:
                del self.blocks[block]
        lengths[prefix] -= 1
        if not lengths[prefix]:
            del lengths[prefix]
            self._reprobe(lengths)


class EntryIndex:
    """The entries of one list, each known by its serial (its position in the list, then in order added).

    The one membership structure of the project: the console asks it about loaded lists, the sandbox's
    gateway asks `contains` on every request, and the sandbox adds and removes entries in place (a removed
    entry's serial is not reused), so a change costs the same at 10 entries as at 100,000.
    """

    def __init__(self) -> None:
        # By serial, three columns: whether IPv6, the block's first address, its prefix length (-1 for a
        # cidr that could not be read, or an entry removed). `interval(serial)` puts them together.
        self._columns = Columns([], [], [])
        self._intervals: list[Interval | None] | None = None  # `intervals`, made on first use
        self.labels: list[str | None] = []  # by serial: the entry's id, or what names an added network
        self._families = {4: _Family(32, [], [], []), 6: _Family(128, [], [], [])}
        self._removed: set[int] = set()
        self._left_reach: dict[int, list[int]] = {}  # per family, the furthest end up to each row; lazily

    @classmethod
    def of_entries(cls, entries: Iterable[dict[str, Any]]) -> EntryIndex:
        """The index of the service's entries as decoded JSON ({"id", "cidr", …}), labelled by id."""
        entries = list(entries)
        return cls.of_cidrs(
            list(map(itemgetter("cidr"), entries)), list(map(dict.get, entries, repeat("id")))
        )

    @classmethod
    def of_cidrs(cls, cidrs: Sequence[str], labels: Sequence[str | None]) -> EntryIndex:
        """The index of canonical cidrs, each with its label (the entry's id)."""
        index = cls()
        columns, blocks = read_with_blocks(cidrs)
        index._columns = columns
        index.labels = list(labels)
        is_v6, starts, prefixes = columns.is_v6, columns.starts, columns.prefixes
        is_v4: list[bool] = list(map(not_, is_v6))
        chosen_v6 = is_v6
        if min(prefixes, default=0) < 0:  # rare: a cidr the service would not write; left out of the rows
            readable = list(map(ge, prefixes, repeat(0)))
            is_v4 = list(map(and_, is_v4, readable))
            chosen_v6 = list(map(and_, is_v6, readable))
        for version, chosen in ((4, is_v4), (6, chosen_v6)):
            index._families[version] = _Family(
                BITS[version],
                list(compress(starts, chosen)),
                list(compress(prefixes, chosen)),
                list(compress(count(), chosen)),
                list(compress(blocks, chosen)),
            )
        return index

    def interval(self, serial: int) -> Interval | None:
        """(version, start, prefix length) of an entry; None for an unreadable cidr or a removed entry."""
        columns = self._columns
        prefix = columns.prefixes[serial]
        return None if prefix < 0 else (6 if columns.is_v6[serial] else 4, columns.starts[serial], prefix)

    @property
    def intervals(self) -> list[Interval | None]:
        """Every entry's `interval`, by serial (made once, on first use, and again after a change)."""
        if self._intervals is None:
            self._intervals = list(map(self.interval, range(len(self._columns.prefixes))))
        return self._intervals

    def size_bits(self) -> list[int]:
        """Host bits per serial (the block holds 2**bits addresses); -1 for no block."""
        columns = self._columns
        widths = map(_WIDTHS.__getitem__, columns.is_v6)
        return [
            -1 if prefix < 0 else width - prefix
            for width, prefix in zip(widths, columns.prefixes, strict=True)
        ]

    def add(self, network: Network, label: str | None) -> int:
        """Index one more network (an import's accepted line, an entry added); returns its serial."""
        version, start, prefix = network.version, int(network.network_address), network.prefixlen
        columns = self._columns
        serial = len(columns.prefixes)
        columns.is_v6.append(version == 6)
        columns.starts.append(start)
        columns.prefixes.append(prefix)
        self._intervals = None
        self.labels.append(label)
        self._families[version].add(start, prefix, serial)
        self._left_reach.pop(version, None)
        return serial

    def remove(self, serial: int) -> None:
        """Forget one entry; the other serials keep their meaning."""
        if serial in self._removed:
            return
        self._removed.add(serial)
        interval = self.interval(serial)
        self._columns.prefixes[serial] = -1
        self._intervals = None
        self.labels[serial] = None
        if interval is None:
            return
        version, start, prefix = interval
        self._families[version].remove(start, prefix, serial)
        self._left_reach.pop(version, None)

    def rows(self) -> tuple[list[Row], list[Row]]:
        """The sorted (start, prefix, serial) rows of IPv4 and IPv6: a SegmentTable's input."""
        return _rows(self._families[4].keys), _rows(self._families[6].keys)

    @property
    def removed(self) -> int:
        """How many serials stand for removed entries (the sandbox rebuilds past a point)."""
        return len(self._removed)

    def address_order(self) -> list[int]:
        """Serials by address: unreadable entries, then IPv4, then IPv6, each range before those inside it.
        The rows are sorted already, so this costs no sort."""
        removed = self._removed
        prefixes = self._columns.prefixes
        unreadable: list[int] = []
        if min(prefixes, default=0) < 0:  # rare (a cidr never read, an entry removed): a third of the time
            unreadable = [s for s in compress(count(), map(lt, prefixes, repeat(0))) if s not in removed]
        for family in (self._families[4], self._families[6]):
            unreadable += map(and_, family.keys, repeat(_SERIAL))
        return unreadable

    def network(self, serial: int) -> Network:
        interval = self.interval(serial)
        assert interval is not None
        version, start, prefix = interval
        kind = ipaddress.IPv4Network if version == 4 else ipaddress.IPv6Network
        return kind((start, prefix))

    # -- questions --------------------------------------------------------------------------------

    def find(self, network: Network) -> int | None:
        """The serial of the first entry that is exactly `network`, or None."""
        family, prefix = self._families[network.version], network.prefixlen
        return family.blocks.get(block_key(int(network.network_address), family.bits - prefix, prefix))

    def contains(self, address: Address) -> bool:
        """Whether any entry holds `address`: the gateway's question, at most one lookup per prefix length."""
        version, value = _family_value(address)
        family = self._families[version]
        blocks = family.blocks
        for host_bits, marker in family.probes:  # noqa: SIM110 (a loop beats any() on the hot path)
            if (value >> host_bits | marker) in blocks:
                return True
        return False

    def holding(self, address: Address) -> list[int]:
        """The serials of the entries that hold `address`, in list order."""
        version, value = _family_value(address)
        family = self._families[version]
        serials: list[int] = []
        for host_bits, marker in family.probes:
            block = value >> host_bits | marker
            if block in family.blocks:
                serials += family.serials(block)
        return sorted(serials)

    def holders(self, address: Address) -> list[str]:
        """The labels (entry ids) of the entries that hold `address`, in list order."""
        labels = self.labels
        return [labels[serial] or "" for serial in self.holding(address)]

    def relate(self, new: Network) -> list[Finding]:
        """As `analysis.relate(new, every entry)`, in list order, without walking the list."""
        version, start, prefix = new.version, int(new.network_address), new.prefixlen
        family = self._families[version]
        found: list[tuple[int, Relation]] = []
        for host_bits, marker in family.probes:
            if marker <= 1 << prefix:  # the blocks holding `new`, or equal to it
                relation = Relation.DUPLICATE if marker == 1 << prefix else Relation.COVERED_BY
                found += [(serial, relation) for serial in family.serials(start >> host_bits | marker)]
        # Inside `new`: a longer prefix starting within its range (an aligned block cannot straddle it).
        keys = family.keys
        low = bisect_left(keys, (start << 8 | (prefix + 1)) << 32)
        high = bisect_left(keys, (end_of((version, start, prefix)) + 1) << _START)
        found += [(key & _SERIAL, Relation.COVERS) for key in keys[low:high]]
        found.sort()
        return [Finding(relation, self.network(serial), self.labels[serial]) for serial, relation in found]

    def nearest(self, address: Address) -> int | None:
        """The serial of the entry of the same family whose range lies closest to `address`, or None."""
        version, value = _family_value(address)
        holding = self.holding(address)
        if holding:
            return holding[0]
        keys = self._families[version].keys
        if not keys:
            return None
        position = bisect_left(keys, (value + 1) << _START)  # the rows starting at or before the address
        candidates: list[tuple[int, int]] = []  # (distance, serial)
        if position < len(keys):  # the first block starting after the address
            candidates.append(((keys[position] >> _START) - value, keys[position] & _SERIAL))
        if position > 0:  # of the blocks starting before it, the one reaching furthest (none reaches it)
            reach = self._reach(version)[position - 1]
            # a serial in the rows always has its interval (None only for cidrs never put in a row)
            candidates.append((value - end_of(self.interval(reach)), reach))  # type: ignore[arg-type]
        return min(candidates)[1]

    def _reach(self, version: int) -> list[int]:
        """For each sorted row, the serial of the row up to it whose block ends furthest."""
        reach = self._left_reach.get(version)
        if reach is None:
            reach, best, best_end = [], -1, -1
            interval = self.interval
            for key in self._families[version].keys:
                serial = key & _SERIAL
                end = end_of(interval(serial))  # type: ignore[arg-type]  # in a row: never None
                if end > best_end:
                    best, best_end = serial, end
                reach.append(best)
            self._left_reach[version] = reach
        return reach


def _rows(keys: list[int]) -> list[Row]:
    starts = map(rshift, keys, repeat(_START))
    prefixes = map(and_, map(rshift, keys, repeat(32)), repeat(255))
    return list(zip(starts, prefixes, map(and_, keys, repeat(_SERIAL)), strict=True))


def _family_value(address: Address) -> tuple[int, int]:
    address = unmapped(address)
    return address.version, int(address)
