"""How an answer meets its engine: the context of its model, its turn at a model that answers one request at
a time, and its client, who must still be there to read it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextlib import suppress
from typing import Any

from starlette.requests import Request

from app.sandbox.engines.base import Engine
from app.sandbox.engines.turns import Ticket, TurnLine, no_line


def join_line(engine: Engine, model: str, project_id: str) -> Ticket:
    """A place in the line of an engine that answers one request at a time per model (the local engine's);
    ready at once for the others."""
    line_for: Callable[[str], TurnLine] | None = getattr(engine, "line_for", None)
    return no_line(project_id) if line_for is None else line_for(model).join(project_id)


def model_window(engine: Engine, model: str) -> int | None:
    """The context of the model behind `model`, for an engine that knows it (the local engine, once the
    weights are loaded); None: the sandbox's configured window."""
    window: Callable[[str], int] | None = getattr(engine, "context_window", None)
    return None if window is None else window(model)


async def unless_client_leaves(request: Request, work: Coroutine[Any, Any, None]) -> bool:
    """Runs `work` (a whole non-streamed answer) until it ends (True) or the client disconnects (False: the
    work is cancelled, which ends its generation and gives up its turn). A stream needs none of this:
    Starlette cancels its writer when the client leaves."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        if not task.done():  # the client left, or this handler itself was cancelled (the server stopping)
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
    if task.cancelled():
        return False
    task.result()  # an error of the answer (a ServiceError) is the response
    return True


async def _disconnected(request: Request) -> None:
    """Returns when the client disconnects: with the body read, the next ASGI message is the disconnect."""
    while (await request.receive())["type"] != "http.disconnect":
        pass
