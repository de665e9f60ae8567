"""The store's one writer: a thread with its own SQLite connection that commits queued writes together.

Writes wait in a queue; the thread takes all that are waiting, runs each in a savepoint of one transaction
(a refused or failed write is undone alone) and commits once. With synchronous=FULL a commit waits for
the disk (0.3 ms to over 1 ms on this machine when it is busy), so fifty admins writing at once share one
flush instead of queueing for fifty; a write is acknowledged (its future resolved) only after the commit.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Protocol

MAX_BATCH = 256


class BatchHooks(Protocol):
    """What the store does around a batch that touches allowlists (its generation number, its memory)."""

    def batch_begins(self, db: sqlite3.Connection) -> None: ...

    def batch_commits(self, db: sqlite3.Connection) -> None: ...

    def batch_ends(self, committed: bool) -> None: ...


@dataclass(frozen=True)
class _Write:
    work: Callable[[sqlite3.Connection], Any]
    lists: bool  # changes an allowlist
    future: Future[Any]


class BatchWriter:
    def __init__(self, db: sqlite3.Connection, hooks: BatchHooks) -> None:
        self._db = db
        self._hooks = hooks
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        # A daemon: a store nobody closed must not keep the process alive. Killed mid-transaction it
        # acknowledged nothing of that transaction, and SQLite rolls it back.
        self._thread = threading.Thread(target=self._loop, name="sandbox-store-writer", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[sqlite3.Connection], Any], lists: bool) -> Future[Any]:
        future: Future[Any] = Future()
        self._queue.put(_Write(work, lists, future))
        return future

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _loop(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < MAX_BATCH:
                try:
                    write = self._queue.get_nowait()
                except queue.Empty:
                    break
                if write is None:
                    stopping = True
                    break
                batch.append(write)
            self._commit([write for write in batch if write.future.set_running_or_notify_cancel()])
        self._db.close()

    def _commit(self, batch: list[_Write]) -> None:
        if not batch:
            return
        db = self._db
        lists = any(write.lists for write in batch)
        try:
            db.execute("BEGIN IMMEDIATE")
            if lists:
                self._hooks.batch_begins(db)
        except BaseException as error:
            self._abandon(batch, error, lists)
            return
        outcomes: list[tuple[_Write, Any, BaseException | None]] = []
        for write in batch:
            db.execute("SAVEPOINT write")
            try:
                result = write.work(db)
            except BaseException as error:  # a refusal (a guard, a duplicate) or a fault: this write only
                db.execute("ROLLBACK TO write")
                db.execute("RELEASE write")
                outcomes.append((write, None, error))
            else:
                db.execute("RELEASE write")
                outcomes.append((write, result, None))
        changed = any(write.lists and error is None for write, _, error in outcomes)
        try:
            if changed:
                self._hooks.batch_commits(db)
            db.execute("COMMIT")
        except BaseException as error:
            self._abandon(batch, error, changed)
            return
        if changed:
            self._hooks.batch_ends(committed=True)
        for write, result, failure in outcomes:
            if failure is None:
                write.future.set_result(result)
            else:
                write.future.set_exception(failure)

    def _abandon(self, batch: list[_Write], error: BaseException, changed: bool) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        if changed:
            self._hooks.batch_ends(committed=False)
        for write in batch:
            write.future.set_exception(error)
