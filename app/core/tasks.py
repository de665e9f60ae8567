"""Named async tasks: a new task under a name cancels the one before; every task is referenced until done."""

from __future__ import annotations

import functools
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger(__name__)


class TaskRegistry:
    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[Any]] = {}

    def start(self, name: str, coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        import asyncio  # here, not at the top: asyncio costs ~30 ms before the first frame

        self.cancel(name)
        task = asyncio.ensure_future(coroutine)
        self._tasks[name] = task
        task.add_done_callback(functools.partial(self._finished, name))
        return task

    def _finished(self, name: str, task: asyncio.Task[Any]) -> None:
        if self._tasks.get(name) is task:
            del self._tasks[name]
        if not task.cancelled() and task.exception() is not None:
            log.error("task %s failed", name, exc_info=task.exception())

    def cancel(self, name: str) -> bool:
        task = self._tasks.get(name)
        if task is not None and not task.done():
            task.cancel()
            return True
        return False

    def running(self, name: str) -> bool:
        task = self._tasks.get(name)
        return task is not None and not task.done()

    async def cancel_all(self) -> None:
        import asyncio

        tasks = [task for task in self._tasks.values() if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
