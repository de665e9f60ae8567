"""The qasync loop, with the async-generator hooks that asyncio installs and qasync does not.

Without them, leaving `async for` over an SSE stream early prints "async generator ignored GeneratorExit".
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import qasync


def install_asyncgen_hooks(loop: asyncio.AbstractEventLoop) -> Any:
    """Install the loop's hooks; returns the previous ones, to restore."""
    previous = sys.get_asyncgen_hooks()
    sys.set_asyncgen_hooks(
        # BaseEventLoop's hooks are private, so typeshed leaves them out of AbstractEventLoop.
        firstiter=loop._asyncgen_firstiter_hook,  # type: ignore[attr-defined]
        finalizer=loop._asyncgen_finalizer_hook,  # type: ignore[attr-defined]
    )
    return previous


# qasync ships no type information (no py.typed, no stubs), so its loop class is Any to mypy.
class ConsoleEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    def run_forever(self) -> None:
        previous = install_asyncgen_hooks(self)
        try:
            super().run_forever()
        finally:
            sys.set_asyncgen_hooks(*previous)
