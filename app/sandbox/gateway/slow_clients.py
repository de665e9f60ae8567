"""What the sandbox does about clients that connect and then dawdle (slowloris, or a crowd of idle sockets).

uvicorn already gives: `timeout_keep_alive` (closes a connection idle *after* a response) and
`limit_concurrency` (a 503 to a request that arrives while too many are open). It lacks these, written here
as a subclass of its httptools protocol (a C parser; uvicorn's other one, h11, validates each header in
Python, ~90 us more per gateway request). httptools is a dependency with wheels for every platform the
installers build, so the sandbox has no second parser: one that ran only where httptools is missing would be
a path no test runs, and where it cannot be imported the sandbox does not start (HttpParserMissing).
- a deadline for a connection's request head, from the moment it opens and again after every response:
  uvicorn's keep-alive timer is cancelled by any byte, so one byte every few seconds holds a socket for ever,
  and a connection that sends nothing at all is never timed at all;
- a cap on open connections enforced when they open: uvicorn's limit is checked only once a whole request
  head has arrived, which an idle crowd never sends. Beyond the cap a connection gets a 503 at once;
- a cap on the size of a request's head, MAX_HEAD_BYTES, a 400 beyond it: httptools has none of its own
  (llhttp's limit is 80 KB), so it is counted here;
- a deadline for a client that stops reading its answer (nginx's `send_timeout`, 60 s by default there too):
  uvicorn waits for the socket to drain for ever, so a stream whose client neither reads nor closes would hold
  its handler, and the local engine's turn with it, for good. Once writing has been paused (the transport's
  buffer full) for `send_timeout` seconds, the connection is aborted: the handler sees the client gone.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from itertools import chain
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


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
            pass  # the limit stays: the cap still answers, accepts beyond the limit fail


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


if TYPE_CHECKING:
    _ProtocolBase = HttpToolsProtocol
else:
    _ProtocolBase = object


class HeadDeadline(_ProtocolBase):
    """The head deadline and the connection cap, mixed in before uvicorn's httptools protocol (which gives
    `loop`, `transport`, `cycle`, `connections` and the methods overridden here). Typed against it; at run
    time its base is `object`, so that importing this module does not import httptools."""

    head_timeout: float
    max_connections: int
    send_timeout: float = 60.0
    _head_deadline: asyncio.TimerHandle | None = None
    _send_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self.max_connections:
            transport.write(BUSY)
            transport.close()
            return
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        cycle: Any = self.cycle
        if not self.transport.is_closing() and not (cycle is not None and not cycle.response_complete):
            self._arm()  # the next request's head has the same deadline as the first's

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._reading_again()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        """The transport's buffer is full: the client has this long to read some of it."""
        super().pause_writing()
        if self._send_deadline is None:
            self._send_deadline = self.loop.call_later(self.send_timeout, self.transport.abort)

    def resume_writing(self) -> None:
        self._reading_again()
        super().resume_writing()

    def _reading_again(self) -> None:
        if self._send_deadline is not None:
            self._send_deadline.cancel()
            self._send_deadline = None

    def _arm(self) -> None:
        self._disarm()
        self._head_deadline = self.loop.call_later(self.head_timeout, self._expire)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _expire(self) -> None:
        self._head_deadline = None
        cycle: Any = self.cycle
        if cycle is None or cycle.response_complete:  # no request running: only a slow head
            self.transport.close()


_REQUEST_LINE = (
    16  # a head's bytes besides the URL and the headers: the method, the version, spaces, line ends
)
_HEADER_LINE = 4  # a header's bytes besides its name and value: ": " and the line's end


class HeadTooLarge(Exception):
    """Raised from a parser callback: httptools turns it into its own error, which uvicorn answers with a 400."""


class HttpParserMissing(RuntimeError):
    """httptools cannot be imported: the sandbox does not start rather than serve without its guards."""

    def __init__(self) -> None:
        super().__init__(
            "the sandbox needs the httptools package (its HTTP parser), which cannot be imported here: "
            "install it into this Python environment with `python -m pip install httptools`"
        )


def guarded_httptools_protocol(
    timeout: float, cap: int, send_timeout: float = 60.0
) -> type[HttpToolsProtocol]:
    """uvicorn's httptools protocol with a head deadline, a connection cap, a head size cap and a deadline for
    a client that stops reading (uvicorn builds one per connection). Raises HttpParserMissing where httptools cannot be imported."""
    try:
        import httptools  # noqa: F401  # uvicorn's module below may be imported already without it
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError as error:
        raise HttpParserMissing from error

    send_seconds = send_timeout

    class GuardedHttpToolsProtocol(HeadDeadline, HttpToolsProtocol):
        head_timeout = timeout
        max_connections = cap
        send_timeout = send_seconds
        _in_head = True  # between requests, or inside one's head: bytes received count towards the head
        _head_bytes = 0  # bytes received since the head began, while it is incomplete
        # The ASGI TLS extension of this connection's requests (None over plain HTTP): the client's
        # certificate, read once per connection, for the gateway's mutual TLS check.
        _extensions: dict[str, Any] | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            ssl_object = transport.get_extra_info("ssl_object")
            if ssl_object is not None:
                der = ssl_object.getpeercert(binary_form=True)
                chain = (ssl.DER_cert_to_PEM_cert(der),) if der else ()
                self._extensions = {"tls": {"client_cert_chain": chain}}

        def on_message_begin(self) -> None:
            super().on_message_begin()
            if self._extensions is not None:
                self.scope["extensions"] = self._extensions

        def data_received(self, data: bytes) -> None:
            if self._in_head:
                self._head_bytes += len(data)
            super().data_received(data)
            if self._in_head and self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
                # The head is still incomplete past the cap (a line that never ends, or headers a byte at
                # a time): a 400, as for a head parsed whole past the cap.
                self.send_400_response("Invalid HTTP request received.")

        def on_headers_complete(self) -> None:
            # A whole head can arrive in one read with a body, so the parsed head is measured too: here, once,
            # in C (map, chain), rather than by a Python call for every header and piece of the URL.
            headers = self.headers
            size = (
                _REQUEST_LINE
                + len(self.url)
                + _HEADER_LINE * len(headers)
                + sum(map(len, chain.from_iterable(headers)))
            )
            if size > MAX_HEAD_BYTES:
                raise HeadTooLarge
            self._in_head = False
            self._head_bytes = 0
            self._disarm()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._in_head = True

    return GuardedHttpToolsProtocol
