"""Usage per key (`last_used_at`, requests counted): counted in memory by the gateway, written in batches by
the keeper, never per request."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from app.sandbox.store.database import Database
from app.sandbox.store.keys import Keys


class KeyUsage:
    """Writes what the gateway counted on the keys since the last flush."""

    def __init__(self, database: Database, keys: Keys) -> None:
        self._database = database
        self._keys = keys

    async def flush(self) -> int:
        """Write the counts taken so far; how many keys it touched."""
        work = self.pending()
        return 0 if work is None else await self._database.write(work)

    def pending(self) -> Callable[[sqlite3.Connection], int] | None:
        """The write of the counts taken so far, or None when nothing was counted.

        The counts are swapped out at once (one assignment): a request counted on the old dict at that very
        moment may be lost, which costs one request of usage, never a key's state."""
        if not self._keys.usage:
            return None
        taken, self._keys.usage = self._keys.usage, {}
        rows = [(count, last, digest) for digest, (count, last) in taken.items()]

        def work(db: sqlite3.Connection) -> int:
            db.executemany(
                "UPDATE api_keys SET request_count = request_count + ?, "
                "last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE key_hash = ?",
                rows,
            )
            return len(rows)

        return work
