"""One SQLite file as the aggregates share it: a reading connection and one writer thread.

Every write runs on the writer thread with its own connection, which commits the writes waiting together
(writer.py), so the server's event loop never waits on a disk flush: `write` resolves once the write is
on disk. Reads use a second connection under a lock that is never held across a disk flush.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from app.common.private import private_dir, private_file
from app.sandbox.store.commits import CommitWatch
from app.sandbox.store.schema import connect, create_tables
from app.sandbox.store.writer import BatchHooks, BatchWriter

T = TypeVar("T")


class Database:
    """The connections of one store; the aggregates (keys, allowlists, ...) each hold it. Thread-safe."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.time) -> None:
        private_dir(path.parent)
        private_file(path)  # prompts, answers, allowlists and key hashes: the owner's only
        self.path = path
        self.clock = clock  # Unix seconds; tests give a clock they move
        self._writer_db = connect(path)  # the writer thread's own, after this set-up
        create_tables(self._writer_db)
        # Guards the reading connection and the allowlists in memory; never held across a disk flush.
        self.lock = threading.RLock()
        self.reader = connect(path)  # the reading connection: use it under `lock`
        self.commits = CommitWatch(path)
        self._writer: BatchWriter | None = None

    def start_writer(self, hooks: BatchHooks) -> None:
        """Start the writer thread; `hooks` (the allowlists) run around each batch that changes a list."""
        self._writer = BatchWriter(self._writer_db, hooks)

    def now(self) -> int:
        return int(self.clock())

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read on the reading connection (one at a time; SQLite reads are short)."""
        with self.lock:
            return work(self.reader)

    def submit(self, work: Callable[[sqlite3.Connection], T], lists: bool = False) -> Future[T]:
        """Queue a write for the writer thread; the future resolves once it is on disk. For the writes made
        before the server's loop serves (the sealing key, runs cut short) and when the store closes:
        everywhere else, `write`."""
        if self._writer is None:
            raise RuntimeError("the store's writer has not started (Database.start_writer)")
        return self._writer.submit(work, lists)

    async def write(self, work: Callable[[sqlite3.Connection], T], lists: bool = False) -> T:
        """Run a write on the writer thread; resolves once it is on disk. `lists`: it changes an allowlist."""
        return await asyncio.wrap_future(self.submit(work, lists))

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()  # which closes its connection
        else:
            self._writer_db.close()
        with self.lock:
            self.commits.close()
            self.reader.close()


def run_blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run one of the store's coroutines to its end and return its result, from a thread that may itself
    run an event loop (a server's start inside the console, a test): on a loop of its own, in a thread of
    its own. The coroutine awaits only the writer thread, so any loop can run it."""
    with ThreadPoolExecutor(1, thread_name_prefix="sandbox-store-wait") as pool:
        return pool.submit(asyncio.run, coroutine).result()
