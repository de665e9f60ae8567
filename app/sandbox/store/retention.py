"""Stored responses are kept `keep_responses_days` days (SandboxConfig), then deleted in the background.

A task on the server's loop deletes expired responses in small batches through the store's writer thread,
so requests are served meanwhile (each batch is one short transaction among theirs); it runs at start and
then every `INTERVAL` seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time

from app.sandbox.store.aggregates import Store

log = logging.getLogger(__name__)
INTERVAL = 3600.0
BATCH = 500
DAY = 86_400.0


async def prune_once(store: Store, keep_days: float, now: float | None = None) -> int:
    """Delete every response older than `keep_days`, a batch at a time; returns how many went."""
    cutoff = (time.time() if now is None else now) - keep_days * DAY
    total = 0
    while True:
        deleted = await store.responses.prune(cutoff, BATCH)
        total += deleted
        if deleted < BATCH:
            return total
        await asyncio.sleep(0)  # a turn for requests between batches


async def keep_pruning(store: Store, keep_days: float, interval: float = INTERVAL) -> None:
    """Run until cancelled (the server's shutdown)."""
    while True:
        try:
            deleted = await prune_once(store, keep_days)
        except Exception:  # a full disk, say: retention waits for the next round, the server goes on
            log.exception("deleting expired stored responses failed")
        else:
            if deleted:
                log.info("deleted %d stored responses older than %g days", deleted, keep_days)
        await asyncio.sleep(interval)
