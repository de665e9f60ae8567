"""Whether anyone committed to the SQLite file since we last looked, without a query.

The gateway asks the store for a list on every request, and the store must notice when another process
(the dashboard) changed the lists. Asking SQLite (the generation number) cost a query per list per
request, ~5% of an allowed request. In WAL mode every commit, by any connection of any process, rewrites
the WAL-index header at the start of the `-shm` file (its change counter, frame count and checksums), so
comparing those 96 bytes (both copies of the header) with the last ones seen says "nothing committed" for
the price of a memory read; when they differ the store asks SQLite as before. A torn read only ever makes
them differ. Hand-written: SQLite's own `PRAGMA data_version` is itself a query.
"""

from __future__ import annotations

import mmap
import os
from pathlib import Path

_HEADER = 96  # two copies of the 48-byte WAL-index header


class CommitWatch:
    def __init__(self, database: Path) -> None:
        self._path = Path(f"{database}-shm")
        self._map: mmap.mmap | None = None
        self._seen = b""

    def _mapped(self) -> mmap.mmap | None:
        if self._map is None:
            try:
                with open(self._path, "rb") as file:
                    if os.fstat(file.fileno()).st_size < _HEADER:
                        return None
                    self._map = mmap.mmap(file.fileno(), _HEADER, access=mmap.ACCESS_READ)
            except OSError:
                return None
        return self._map

    def unchanged(self) -> bool:
        """True only when no commit happened since the last call that returned False (or `seen`)."""
        mapped = self._mapped()
        return mapped is not None and mapped[:_HEADER] == self._seen

    def seen(self) -> None:
        """Remember the header as it is now: call after reading the state it stands for."""
        mapped = self._mapped()
        self._seen = mapped[:_HEADER] if mapped is not None else b""

    def close(self) -> None:
        if self._map is not None:
            self._map.close()
            self._map = None
