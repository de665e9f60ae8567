"""One IP allowlist as it stands in memory: its entries in list order, an EntryIndex over them, the gateway's
compiled lookup, and the usage counted since the last flush.

The store keeps one per list and changes it in place as entries come and go, so a change costs the same
at 10 entries as at 10,000. The gateway asks `admit` on every request: a SegmentTable answers it in one
bisection whatever the prefix lengths. An added entry goes into a copy of the table (`with_block`: work for
the segments it covers); a removed one stays in it with a slot that never admits, so lookups pass over it.
The table is compiled again only when the list is built again, or after as many additions as a quarter of
its segments (inline for a short list, on the store's compiler thread for a long one, the EntryIndex
answering meanwhile, and entries added during the compile put in before the table is used), so compiling
costs each change a constant share. Only the store changes a list, under the lock it shares with it;
readers take the same lock.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import replace
from ipaddress import IPv4Address
from itertools import compress
from operator import attrgetter, ne
from typing import Any

from app.netrules import Address, EntryIndex, Network, parse_entry, unmapped
from app.netrules.segments import SegmentTable
from app.sandbox.store.entry import EntryRecord, EntryUsage

_REBUILD_AFTER = 1024  # removed serials kept before the index is built again (amortized: once per that many)
COMPILE_INLINE_UP_TO = 512  # entries; a longer list's table is compiled off the request path
_SLACK_SHARE = 4  # a table takes added segments up to a 1/_SLACK_SHARE of its own before it is compiled again
_SLACK_FLOOR = 64  # ... and at least this many (a short list's table is compiled inline: cheap, but not free)
LOCKOUT_MARGIN = 60  # seconds: an entry expiring within this is never counted as covering the caller
NEVER = 1 << 62  # the expiry of an entry that does not expire (int: the slots are 64-bit ints)
_SLOTS = 4  # per serial: expires at, requests admitted, the latest's second, admitted ones taken
GONE = -1  # the expiry of a removed entry: never in force


def _expiry(entry: EntryRecord) -> int:
    return NEVER if entry.expires_at is None else entry.expires_at


class _Lasting:
    """The list as the lockout guard sees it: only entries still in force `margin` seconds from now."""

    def __init__(self, allowlist: AllowlistRecord, after: float, overrides: dict[str, int | None]) -> None:
        self._allowlist = allowlist
        self._after = after
        self._overrides = overrides

    def holders(self, address: Address) -> list[str]:
        entries = self._allowlist._entries
        lasting = []
        for entry_id in self._allowlist.holders(address):
            expires = self._overrides.get(entry_id, entries[entry_id].expires_at)
            if expires is None or expires > self._after:
                lasting.append(entry_id)
        return lasting

    def contains(self, address: Address) -> bool:
        return bool(self.holders(address))


class AllowlistRecord:
    """A list of one organization or project: `enabled`, `entries`, `version`, and who among them holds an
    address."""

    def __init__(
        self,
        scope: str,
        owner_id: str,
        enabled: bool,
        entries: Iterable[EntryRecord],
        lock: threading.RLock,
        version: int = 0,
        compile_later: Callable[[AllowlistRecord], None] | None = None,
    ) -> None:
        self.scope = scope  # "organization" or "project"
        self.owner_id = owner_id
        self.enabled = enabled
        self.version = version  # raised by every change to the list (not by usage)
        self._lock = lock
        self._compile_later = compile_later
        self._entries: dict[str, EntryRecord] = {}  # insertion order is list order
        self._serials: dict[str, int] = {}
        self._index = EntryIndex()
        self._changes = 0  # raised when a table is asked for: one a compile began before is stale
        # Blocks (version, start, prefix, serial) added while a compile is under way, which the compile's rows
        # lack: it puts them in before the table is used, so writes meanwhile do not make it start again.
        self._added_since: list[tuple[int, int, int, int]] = []
        # Four 64-bit slots per serial in one flat array, side by side so that a lookup touches one cache
        # line: when the entry expires (NEVER when it does not), the requests admitted (written by the
        # gateway alone, only ever raised), the second of the latest, and how many of them were taken for
        # the store (written by the flush alone). So counting needs no lock: under the GIL each slot is
        # read or written whole, and no slot has two writers.
        self._slots = array("q")
        self._lookup: tuple[SegmentTable, array[int]] | None = None  # a table and the slots it goes with
        self._rebuild(list(entries))

    def _rebuild(self, entries: list[EntryRecord]) -> None:
        pending = self.take_usage()  # counted against the old serials: carried over by id
        self._entries = {entry.id: entry for entry in entries}
        self._index = EntryIndex.of_cidrs(
            list(map(attrgetter("cidr"), entries)), list(map(attrgetter("id"), entries))
        )
        self._serials = {entry.id: serial for serial, entry in enumerate(entries)}
        slots = array("q", bytes(8 * _SLOTS * len(entries)))
        slots[::_SLOTS] = array("q", [_expiry(entry) for entry in entries])
        for usage in pending:
            serial = self._serials.get(usage.entry_id)
            if serial is not None:
                slots[_SLOTS * serial + 1], slots[_SLOTS * serial + 2] = usage.hits, usage.last_matched_at
        self._slots = slots
        self._changed()

    def _changed(self) -> None:
        self._changes += 1
        self._added_since = []  # the rows read from now on hold every entry
        self._lookup = None
        if len(self._entries) <= COMPILE_INLINE_UP_TO or self._compile_later is None:
            self._lookup = (SegmentTable(*self._index.rows()), self._slots)
        else:
            self._compile_later(self)

    # -- the gateway (the event loop's thread) ----------------------------------------------------

    def match(self, address: Address, now: int, count: bool = False) -> int:
        """The serial of the most specific entry in force at `now` that holds `address`, or -1; with
        `count`, the request is counted on that entry.

        Runs on every request, without the lock (an RLock costs ~0.5 µs, a quarter of the budget): the
        table is immutable, swapped whole with the slots it goes with, and the slots are read whole.
        SegmentTable's lookup is written out here with locals only (each call costs ~0.1 µs)."""
        lookup = self._lookup
        if lookup is None:  # a change waits to be compiled: the index answers meanwhile
            found = self._match_by_index(address, now)
            if count and found >= 0:
                self.count(found, now)
            return found
        table, slots = lookup
        # The int ipaddress keeps in its __slots__ (int() goes through a Python-level __int__, ~0.3 µs);
        # the stubs do not declare the private slot.
        value: int = address._ip  # type: ignore[union-attr]
        if type(address) is IPv4Address:
            family = table.v4
        elif value >> 32 == 0xFFFF:  # ::ffff:a.b.c.d is the IPv4 address it carries
            family, value = table.v4, value & 0xFFFFFFFF
        else:
            family = table.v6
        bounds = family.bounds
        if bounds is None:
            index = bisect_right(family.starts, value) - 1
        else:
            bucket = value >> family.shift
            low = bounds[bucket]
            index = bisect_right(family.starts, value, low, bounds[bucket + 1] + family.slack) - 1
            if index < low:
                index = low - 1
        serial: int = family.inner[index]
        outer = table.outer
        while serial >= 0:
            slot = _SLOTS * serial
            if now < slots[slot]:
                if count:
                    slots[slot + 1] += 1
                    slots[slot + 2] = now
                return serial
            serial = outer[serial]
        return -1

    def _match_by_index(self, address: Address, now: int) -> int:
        with self._lock:
            interval, slots = self._index.interval, self._slots
            holding = sorted(
                self._index.holding(unmapped(address)),
                key=lambda serial: -interval(serial)[2],  # type: ignore[index]
            )
            return next((serial for serial in holding if now < slots[_SLOTS * serial]), -1)

    def count(self, serial: int, now: int) -> None:
        """One request admitted by the entry `match` gave (in memory, no lock; the store flushes it)."""
        slots, slot = self._slots, _SLOTS * serial
        if slot < len(slots):
            slots[slot + 1] += 1
            slots[slot + 2] = now

    def admit(self, address: Address, now: int) -> bool:
        """`match` and `count` at once: whether an entry in force holds `address`, counting the request."""
        return self.match(address, now, True) >= 0

    def compile(self) -> None:
        """Compile the lookup table for the list as it stands now (the store's compiler thread)."""
        with self._lock:
            if self._lookup is not None:
                return
            changes, rows = self._changes, self._index.rows()
            self._added_since = []
        table = SegmentTable(*rows)  # without the lock: the gateway answers from the index meanwhile
        with self._lock:
            if self._changes == changes:
                for block in self._added_since:
                    table = table.with_block(*block)
                self._added_since = []
                self._lookup = (table, self._slots)

    # -- usage ------------------------------------------------------------------------------------

    def take_usage(self) -> list[EntryUsage]:
        """What was counted since the last call, by entry id. The counted serials are found in C
        (`compress` over admitted != taken: ~1 ms at 100,000 entries, once a flush) rather than by a
        set kept per request."""
        with self._lock:
            labels, slots = self._index.labels, self._slots
            counted = map(ne, slots[1::_SLOTS], slots[3::_SLOTS])
            usage = []
            for serial in compress(range(len(labels)), counted):
                slot = _SLOTS * serial
                admitted = slots[slot + 1]
                entry_id = labels[serial]
                if entry_id is not None:
                    usage.append(EntryUsage(entry_id, admitted - slots[slot + 3], slots[slot + 2]))
                slots[slot + 3] = admitted
            return usage

    def has_usage(self) -> bool:
        with self._lock:
            slots = self._slots
            return any(map(ne, slots[1::_SLOTS], slots[3::_SLOTS]))

    def carry(self, usage: Iterable[EntryUsage]) -> None:
        """Add usage counted elsewhere (by this list's earlier self, before another process changed it)."""
        with self._lock:
            for item in usage:
                serial = self._serials.get(item.entry_id)
                if serial is not None:
                    slot = _SLOTS * serial
                    self._slots[slot + 1] += item.hits
                    self._slots[slot + 2] = max(self._slots[slot + 2], item.last_matched_at)

    def flushed(self, usage: Iterable[EntryUsage]) -> None:
        """The store wrote this usage: the entries carry it from now on."""
        with self._lock:
            for item in usage:
                entry = self._entries.get(item.entry_id)
                if entry is not None:
                    last = max(entry.last_matched_at or 0, item.last_matched_at)
                    self._entries[item.entry_id] = replace(
                        entry, hit_count=entry.hit_count + item.hits, last_matched_at=last
                    )

    def entry_json(self, entry: EntryRecord, now: float) -> dict[str, Any]:
        serial = self._serials.get(entry.id)
        if serial is None:
            return entry.as_json(now)
        slot = _SLOTS * serial
        pending = self._slots[slot + 1] - self._slots[slot + 3]
        if not pending:
            return entry.as_json(now)
        last = max(entry.last_matched_at or 0, self._slots[slot + 2])
        return entry.as_json(now, pending, last)

    def entries_json(self, now: float) -> list[dict[str, Any]]:
        with self._lock:
            return [self.entry_json(entry, now) for entry in self._entries.values()]

    # -- questions (any thread) -------------------------------------------------------------------

    @property
    def entries(self) -> tuple[EntryRecord, ...]:
        """A copy, in list order (costs the length of the list: for answers that show it whole)."""
        with self._lock:
            return tuple(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def contains(self, address: Address) -> bool:
        with self._lock:
            return self._index.contains(address)

    def holders(self, address: Address) -> list[str]:
        """The ids of the entries that hold `address`, in list order (expired or not)."""
        with self._lock:
            labels = self._index.labels
            return [labels[serial] or "" for serial in self._index.holding(unmapped(address))]

    def lasting(self, now: float, overrides: dict[str, int | None] | None = None) -> _Lasting:
        """The list as the lockout guard counts it: entries in force for at least LOCKOUT_MARGIN seconds
        after `now`, with `overrides` (entry id -> a new expires_at) as if already made."""
        return _Lasting(self, now + LOCKOUT_MARGIN, overrides or {})

    def get(self, entry_id: str) -> EntryRecord | None:
        with self._lock:
            return self._entries.get(entry_id)

    def find(self, id_or_cidr: str) -> EntryRecord | None:
        """The entry with this id, or the one that is exactly this canonical CIDR."""
        with self._lock:
            entry = self._entries.get(id_or_cidr)
            if entry is not None:
                return entry
            try:
                network = parse_entry(id_or_cidr)
            except ValueError:
                return None
            serial = self._index.find(network)
            label = self._index.labels[serial] if serial is not None else None
            return self._entries.get(label) if label else None

    # -- changes (the store only, holding the lock) -----------------------------------------------

    def added(self, entry: EntryRecord, network: Network) -> None:
        self._entries[entry.id] = entry
        serial = self._index.add(network, entry.id)
        self._serials[entry.id] = serial
        self._slots.extend((_expiry(entry), 0, 0, 0))
        block = (network.version, int(network.network_address), network.prefixlen, serial)
        lookup = self._lookup
        if lookup is None:  # a compile is on its way: it reads this entry or puts it in
            self._added_since.append(block)
        elif lookup[0].slack >= max(_SLACK_FLOOR, lookup[0].segments // _SLACK_SHARE):
            self._changed()  # the table has taken its share of additions: compile it again
        else:
            self._changes += 1  # no compile runs while a table is in use; should one, it is stale
            self._lookup = (lookup[0].with_block(*block), self._slots)

    def updated(self, entry: EntryRecord) -> None:
        """A new expiry or description: the index and the table stand (the expiry is read by serial)."""
        self._entries[entry.id] = entry
        serial = self._serials.get(entry.id)
        if serial is not None:
            self._slots[_SLOTS * serial] = _expiry(entry)

    def removed(self, entry_id: str) -> None:
        self._entries.pop(entry_id, None)
        serial = self._serials.pop(entry_id, None)
        if serial is not None:
            self._index.remove(serial)
            self._slots[_SLOTS * serial] = GONE  # never admits, should a stale chain still name it
        # The table stands: the slot says GONE, so a lookup passes over the serial to the entry around it
        # (as it does over an expired one), and a compile under way may include it or not alike.
        if self._index.removed > max(_REBUILD_AFTER, len(self._entries)):
            self._rebuild(list(self._entries.values()))
