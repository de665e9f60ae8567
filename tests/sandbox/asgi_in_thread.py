"""schemathesis's in-process ASGI client, with the application run in the calling thread.

schemathesis's ASGI client (schemathesis.python.asgi) turns each request into a requests.Response and runs
the application on anyio's blocking portal: an event loop in a thread of its own, reached by two thread
hops per request (one to make the request's anyio.Event, one to run the application). The fuzzing module
makes ~10,000 requests, and every hop wakes the loop's thread and hands the GIL back and forth.

LoopInThisThread serves the two portal methods the client calls (`call` and `start_task_soon`) on one
event loop kept in the calling thread: the same client code builds the same requests and responses, and
the application (its lifespan included, which runs as a task of the loop between requests) runs on an
asyncio loop as it did, only without the hops.

The portal is found through schemathesis's private `_get_portal`: where a release moves or renames it,
`in_this_thread` changes nothing and the calls go through the portal as before (the same checks, slower).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from schemathesis.python import asgi


class LoopInThisThread:
    """The part of anyio's BlockingPortal that schemathesis's ASGI client uses, on a loop of this thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def call(self, func: Callable[..., Any], *args: Any) -> Any:
        """Run `func` to its end on the loop and give its result; `func` may be a coroutine function or
        plain (anyio.Event, which must be made inside the loop's task to know its backend)."""

        async def run() -> Any:
            result = func(*args)
            return await result if inspect.isawaitable(result) else result

        return self.loop.run_until_complete(run())

    def start_task_soon(self, func: Callable[..., Any], *args: Any) -> asyncio.Task[Any]:
        """A task that runs whenever the loop does (a lifespan, which waits for messages between requests).
        An asyncio.Task has the `done()` and `result()` the client reads of the portal's Future."""
        return self.loop.create_task(func(*args))

    def close(self) -> None:
        """Cancel what is left (a lifespan that never answered its shutdown) and close the loop."""
        pending = asyncio.all_tasks(self.loop)
        for task in pending:
            task.cancel()
        if pending:
            self.loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self.loop.close()


@contextmanager
def in_this_thread() -> Iterator[None]:
    """Inside the block, every schemathesis ASGI client runs its application in the calling thread. At its
    end every lifespan schemathesis has started is shut down (on the loop it runs on; schemathesis itself
    waits for the process's exit, and only the tests that use this block start one) and the loop closed."""
    if not callable(getattr(asgi, "_get_portal", None)):
        yield
        return
    portal = LoopInThisThread()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(asgi, "_get_portal", lambda: portal)
            try:
                yield
            finally:
                shutdown = getattr(asgi, "shutdown_lifespans", None)
                if callable(shutdown):
                    shutdown()
    finally:
        portal.close()


@contextmanager
def clients_ignore_the_environment() -> Iterator[None]:
    """Inside the block, the ASGI clients schemathesis makes for itself ignore the environment (proxy and CA
    bundle variables, ~/.netrc), as the fuzzing module's own client does.

    The ignored-auth check sends its probes (no credentials, then wrong ones) without the test's session,
    so that none of its auth rides along, and schemathesis makes a client for each; requests then reads
    the whole environment for proxy variables on every probe. A request to an application in process goes
    through no proxy and no TLS, so the probes are the same requests without the lookups."""
    make = getattr(asgi, "get_client", None)
    if not callable(make):
        yield
        return

    def get_client(*args: Any, **keywords: Any) -> Any:
        client = make(*args, **keywords)
        client.trust_env = False
        return client

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(asgi, "get_client", get_client)
        yield
