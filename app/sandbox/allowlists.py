"""One IP allowlist as it stands in memory: its entries in list order and one EntryIndex over them.

The store keeps one per list and changes it in place as entries come and go, so a change costs the same
at 10 entries as at 10,000, and the gateway's question is one lookup per prefix length. Only the store
changes it, under the lock it shares with it; readers take the same lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.netrules import Address, EntryIndex, Network, parse_entry
from app.netrules.policy import ListAnswer, answer

_REBUILD_AFTER = 1024  # removed serials kept before the index is built again (amortized: once per that many)


@dataclass(frozen=True)
class Entry:
    id: str
    cidr: str
    description: str
    created_at: int

    def as_json(self) -> dict[str, Any]:
        return {
            "object": "ip_allowlist.entry",
            "id": self.id,
            "cidr": self.cidr,
            "description": self.description,
            "created_at": self.created_at,
        }


class Allowlist:
    """A list of one organization or project: `enabled`, `entries`, and who among them holds an address."""

    def __init__(
        self, scope: str, owner_id: str, enabled: bool, entries: Iterable[Entry], lock: threading.RLock
    ) -> None:
        self.scope = scope  # "organization" or "project"
        self.owner_id = owner_id
        self.enabled = enabled
        self._lock = lock
        self._entries: dict[str, Entry] = {}  # insertion order is list order
        self._serials: dict[str, int] = {}
        self._index = EntryIndex()
        self._rebuild(list(entries))

    def _rebuild(self, entries: list[Entry]) -> None:
        self._entries = {entry.id: entry for entry in entries}
        self._index = EntryIndex.of_entries({"id": entry.id, "cidr": entry.cidr} for entry in entries)
        self._serials = {entry.id: serial for serial, entry in enumerate(entries)}

    # -- questions (any thread) -------------------------------------------------------------------

    @property
    def entries(self) -> tuple[Entry, ...]:
        """A copy, in list order (costs the length of the list: for answers that show it whole)."""
        with self._lock:
            return tuple(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def contains(self, address: Address) -> bool:
        with self._lock:
            return self._index.contains(address)

    def answer(self, address: Address) -> ListAnswer:
        """What this list says of `address` (netrules' policy), the switch and the entries read together."""
        with self._lock:
            return answer(self._index, self.enabled, address)

    def holders(self, address: Address) -> list[str]:
        """The ids of the entries that hold `address`, in list order."""
        with self._lock:
            labels = self._index.labels
            return [labels[serial] or "" for serial in self._index.holding(address)]

    def get(self, entry_id: str) -> Entry | None:
        with self._lock:
            return self._entries.get(entry_id)

    def find(self, id_or_cidr: str) -> Entry | None:
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

    def added(self, entry: Entry, network: Network) -> None:
        self._entries[entry.id] = entry
        self._serials[entry.id] = self._index.add(network, entry.id)

    def removed(self, entry_id: str) -> None:
        self._entries.pop(entry_id, None)
        serial = self._serials.pop(entry_id, None)
        if serial is not None:
            self._index.remove(serial)
        if self._index.removed > max(_REBUILD_AFTER, len(self._entries)):
            self._rebuild(list(self._entries.values()))
