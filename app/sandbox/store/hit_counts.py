"""Usage per allowlist entry (hit counts): counted in memory by the gateway, written in batches, never per
request."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from app.sandbox.store.allowlists import StoredAllowlists
from app.sandbox.store.database import Database


class HitCounts:
    """Writes what the gateway counted on the lists in memory (and on lists dropped from memory since)."""

    def __init__(self, database: Database, allowlists: StoredAllowlists) -> None:
        self._database = database
        self._allowlists = allowlists

    async def flush(self) -> int:
        """Write what the gateway counted since the last flush; how many entries it touched."""
        work = self.pending()
        return 0 if work is None else await self._database.write(work)

    def pending(self) -> Callable[[sqlite3.Connection], int] | None:
        """The write of the counts taken so far, or None when nothing was counted.

        The counters are taken and applied to the lists on the writer, under the lock, so no reader sees
        them counted twice or not at all. A commit that fails loses that batch of counts (usage, not
        state: the lists stay right)."""
        lists, carried_by_list = self._allowlists.in_memory, self._allowlists.carried
        lock = self._database.lock
        with lock:
            if not any(allowlist.has_usage() for allowlist in lists.values()) and not carried_by_list:
                return None

        def work(db: sqlite3.Connection) -> int:
            with lock:
                taken = [(allowlist, allowlist.take_usage()) for allowlist in lists.values()]
                carried = [usage for items in carried_by_list.values() for usage in items]
                carried_by_list.clear()
                rows = [
                    (usage.hits, usage.last_matched_at, usage.entry_id)
                    for usage in [*carried, *(usage for _, items in taken for usage in items)]
                ]
                db.executemany(
                    "UPDATE entries SET hit_count = hit_count + ?, "
                    "last_matched_at = MAX(COALESCE(last_matched_at, 0), ?) WHERE id = ?",
                    rows,
                )
                for allowlist, items in taken:
                    allowlist.flushed(items)
                return len(rows)

        return work
