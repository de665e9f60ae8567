"""Work the sandbox does off the request path: compiling a long list's lookup table when it is read in or
has taken many additions (allowlists.py), writing the usage the gateway counted, removing entries a grace
period after they expired, reading again the certificates the dashboard changed.

Two daemon threads: the compiler waits for lists to compile (a 100,000-entry table takes a few hundred ms
of Python, which must not stall the event loop nor the store's writer), and the keeper wakes every flush
interval. Both end with `stop()`; the store writes the last usage when it closes.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading

from app.sandbox.store.aggregates import Store
from app.sandbox.store.allowlist_record import AllowlistRecord

log = logging.getLogger(__name__)


class Compiler:
    """Compiles the lookup tables of lists handed to `submit`, one at a time, latest state first."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[AllowlistRecord | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="sandbox-compiler", daemon=True)
        self._thread.start()

    def submit(self, allowlist: AllowlistRecord) -> None:
        self._queue.put(allowlist)

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=10)

    def _loop(self) -> None:
        while (allowlist := self._queue.get()) is not None:
            try:
                allowlist.compile()  # a list already compiled (queued twice) returns at once
            except Exception:  # a bug: the index keeps answering, so log it and go on
                log.exception("compiling an allowlist's lookup table failed")


class Keeper:
    """Every `interval` seconds: the usage counted is written, and entries expired for `grace` seconds go."""

    def __init__(self, store: Store, interval: float, grace: float) -> None:
        self._store = store
        self._interval = interval
        self._grace = grace
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sandbox-keeper", daemon=True)

    def start(self) -> Keeper:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    async def tick(self) -> None:
        """One round (tests call it with a clock they moved)."""
        await self._store.hit_counts.flush()
        await self._store.key_usage.flush()
        await self._store.usage.flush()
        await self._store.usage.prune()  # minute buckets past 90 days, once an hour
        await self._store.budgets.check()  # after the flush: this month's spend includes it
        await self._store.traffic.flush()
        await self._store.allowlists.remove_expired(self._grace)
        self._store.certificates.reload()  # the dashboard's changes (another process) reach the gateway

    def _loop(self) -> None:
        loop = asyncio.new_event_loop()  # this thread's own, for the store's coroutines
        try:
            while not self._stopping.wait(self._interval):
                try:
                    loop.run_until_complete(self.tick())
                except Exception:  # a disk error: the counts stay in memory for the next round
                    log.exception("the sandbox's upkeep round failed")
        finally:
            loop.close()
