"""What the sandbox does about clients that connect and then dawdle (slowloris, or a crowd of idle sockets).

uvicorn already gives: `timeout_keep_alive` (closes a connection idle *after* a response), a cap on the
size of a request's head (`h11_max_incomplete_event_size`, 400 beyond it) and `limit_concurrency` (a 503 to a
request that arrives while too many are open). It lacks two things, written here as a subclass of its h11
protocol (the sandbox's; httptools is not installed):
- a deadline for a connection's request head, from the moment it opens and again after every response:
  uvicorn's keep-alive timer is cancelled by any byte, so one byte every few seconds holds a socket for ever,
  and a connection that sends nothing at all is never timed at all;
- a cap on open connections enforced when they open: uvicorn's limit is checked only once a whole request
  head has arrived, which an idle crowd never sends. Beyond the cap a connection gets a 503 at once.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol


def hold_connections(count: int) -> None:
    """Raise this process's descriptor limit (up to its hard limit) to hold `count` connections and the
    store's files: a common soft limit of 1,024 would fail accepts long before the cap answers 503."""
    try:
        import resource
    except ImportError:  # Windows: no such limit on sockets
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 256
    if soft != resource.RLIM_INFINITY and soft < wanted:
        ceiling = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (ceiling, hard))
        except (ValueError, OSError):
            pass  # as it was: the cap still answers, accepts beyond the limit fail as before


MAX_HEAD_BYTES = 16 * 1024  # uvicorn's own default, stated: a longer head is a 400
KEEP_ALIVE = 5  # seconds an idle keep-alive connection stays open after a response (uvicorn's default)

_BODY = json.dumps(
    {
        "error": {
            "message": "The sandbox has too many open connections; try again shortly.",
            "type": "server_busy",
            "param": None,
            "code": "too_many_connections",
        }
    }
).encode()
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_BODY), _BODY)
)


def guarded_protocol(head_timeout: float, max_connections: int) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a head deadline and a connection cap (uvicorn builds one per connection)."""

    class GuardedH11Protocol(H11Protocol):
        _head_deadline: asyncio.TimerHandle | None = None
        _seen_cycle: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                transport.write(BUSY)
                transport.close()
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle: Any = self.cycle  # uvicorn's annotation says always set; it is None between requests
            if cycle is not None and cycle is not self._seen_cycle:  # a whole head arrived
                self._seen_cycle = cycle
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            cycle: Any = self.cycle
            if not self.transport.is_closing() and not (cycle is not None and not cycle.response_complete):
                self._arm()  # the next request's head has the same deadline as the first's

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._head_deadline = self.loop.call_later(head_timeout, self._expire)

        def _disarm(self) -> None:
            if self._head_deadline is not None:
                self._head_deadline.cancel()
                self._head_deadline = None

        def _expire(self) -> None:
            self._head_deadline = None
            cycle: Any = self.cycle
            if cycle is None or cycle.response_complete:  # no request running: only a slow head
                self.transport.close()

    return GuardedH11Protocol
