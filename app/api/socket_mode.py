"""WebSocket mode on `/v1/responses`: one socket carries a conversation's `response.create` messages, each
answered with the same events a streamed HTTP response has, as JSON text frames.

As the official Python client does (`client.responses.connect()`): the URL is the base URL's with `ws(s)://`
and `/responses`, the key goes in the upgrade's `Authorization` header only (never the URL or a frame), no
compression, no cap on a message's size; each message is the request's body with `"type":
"response.create"` and without `stream` or `background`. A refusal at the upgrade is the HTTP status it
carries (the same typed error as over HTTP); a refused message is an `error` event with `status`, raised as
that status's error (`error.headers` as its headers); a socket that closes under a request is SocketDropped.

Every frame sent and received is reported to the request's `on_frame`, the key never among them.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from . import defaults
from .bodies import encoded_body
from .connection import ssl_context
from .errors import ApiError, ConnectionFailed, StreamError, TimedOut, status_error
from .events import ErrorEvent, Event, ResponseEvent, parse_event
from .streaming import StreamState

if TYPE_CHECKING:
    from .requests import ResponseCreateParams
    from .transport import Transport

__all__ = ["FrameSink", "ResponsesSocket", "SocketDropped", "SocketStream", "socket_url"]

# What a frame was: sent, received, or the upgrade (its request line and the answer's status).
Direction = Literal["sent", "received", "upgrade"]
FrameSink = Callable[[Direction, str], None]
_NOT_SENT = ("stream", "background")  # HTTP-only fields: implied or refused over a socket


class SocketDropped(ConnectionFailed):
    """The socket closed (or could not be opened) while a request was on it: sending it again is safe."""


def socket_url(base_url: str) -> str:
    """`/responses` under the base URL, as ws:// or wss://."""
    scheme, rest = base_url.split("://", 1)
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest.rstrip('/')}/responses"


def _ignore(_direction: Direction, _text: str) -> None:
    return None


class ResponsesSocket:
    """One WebSocket to `/responses`, opened on the first request and kept for the next ones (one at a time,
    as the service runs them). `aclose()` closes it; a request after that opens a new one."""

    def __init__(self, transport: Transport, open_sockets: set[ResponsesSocket] | None = None) -> None:
        self.transport = transport
        self._open_sockets = set() if open_sockets is None else open_sockets  # its client's, to close them
        self.url = socket_url(transport.base_url)
        self._connection: ClientConnection | None = None
        self.headers: dict[str, str] = {}  # the upgrade's answer

    @property
    def open(self) -> bool:
        return self._connection is not None

    async def connect(self, on_frame: FrameSink = _ignore) -> ClientConnection:
        """The open socket, opening it if need be: the gateway's refusals raise as they do over HTTP."""
        if self._connection is not None:
            return self._connection
        settings = self.transport.settings
        secure = self.url.startswith("wss://")
        on_frame("upgrade", f"GET {self.url} (Upgrade: websocket; the API key in Authorization, not shown)")
        try:
            connection = await connect(
                self.url,
                additional_headers=self.transport.headers("api"),
                user_agent_header=defaults.USER_AGENT,
                ssl=ssl_context(settings) if secure else None,
                proxy=settings.proxy or (True if settings.trust_env else None),
                open_timeout=settings.request_deadline,
                max_size=None,
                compression=None,
                ping_interval=None,  # the service does not ping; a long think is no dead socket
            )
        except InvalidStatus as refused:
            answer = refused.response
            on_frame("upgrade", f"{answer.status_code} {answer.reason_phrase}")
            headers = {name.lower(): value for name, value in answer.headers.raw_items()}
            raise status_error(
                answer.status_code, _json(answer.body), headers, "at the WebSocket upgrade"
            ) from None
        except TimeoutError:
            raise TimedOut(f"{self.url} did not complete the WebSocket upgrade in time.") from None
        except (OSError, InvalidHandshake) as error:
            raise SocketDropped(f"The WebSocket to {self.url} could not be opened: {error}.") from None
        except (
            ImportError,
            ValueError,
        ) as error:  # a SOCKS proxy without python-socks, a proxy URL it refuses
            raise SocketDropped(f"The WebSocket cannot go through this proxy: {error}.") from None
        upgraded = connection.response
        if upgraded is not None:
            self.headers = {name.lower(): value for name, value in upgraded.headers.raw_items()}
            on_frame("upgrade", f"{upgraded.status_code} {upgraded.reason_phrase}")
        self._connection = connection
        self._open_sockets.add(self)
        return connection

    def stream(
        self,
        body: ResponseCreateParams,
        on_sent: Callable[[], None] | None = None,
        on_frame: FrameSink = _ignore,
    ) -> SocketStream:
        """One response over the socket, read as a ResponseStream is: `async with` sends it, `async for`
        yields its events up to the final one."""
        return SocketStream(self, body, on_sent, on_frame)

    def abandon(self) -> None:
        """Drop the socket at once, without the closing handshake: a response left unread (Stop) ends now,
        where a polite close would wait behind its events for the service's answer, seconds."""
        connection, self._connection = self._connection, None
        self._open_sockets.discard(self)
        if connection is not None:
            connection.transport.abort()

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        self._open_sockets.discard(self)
        if connection is not None:
            await connection.close()


class SocketStream:
    """One `response.create` and its events. Leaving the block before the final event closes the socket: the
    service stops a response only when its socket goes, and its later events must not reach the next one."""

    def __init__(
        self,
        socket: ResponsesSocket,
        body: ResponseCreateParams,
        on_sent: Callable[[], None] | None,
        on_frame: FrameSink,
    ) -> None:
        self._socket = socket
        self._body = body
        self._on_sent = on_sent
        self._on_frame = on_frame
        self.state = StreamState()
        self._connection: ClientConnection | None = None
        self._ended = False  # its final event or its `error` came: the socket is free for the next

    async def __aenter__(self) -> SocketStream:
        connection = await self._socket.connect(self._on_frame)
        self.state.headers = dict(self._socket.headers)
        message: dict[str, Any] = {"type": "response.create"}
        message.update({name: value for name, value in self._body.items() if name not in _NOT_SENT})
        text = (await encoded_body(message)).decode()
        try:
            await connection.send(text)
        except ConnectionClosed as closed:
            await self._socket.aclose()
            raise SocketDropped(
                f"The WebSocket closed before the request went ({_reason(closed)})."
            ) from None
        self._on_frame("sent", text)
        self._connection = connection
        if self._on_sent is not None:
            self._on_sent()
        return self

    async def __aexit__(self, *_: object) -> None:
        if not self._ended:
            self._socket.abandon()

    def __aiter__(self) -> AsyncIterator[Event]:
        if self._connection is None:
            raise RuntimeError("A SocketStream is read inside `async with`, which sends its request.")
        return self._events(self._connection)

    async def _events(self, connection: ClientConnection) -> AsyncIterator[Event]:
        while True:
            try:
                text = await connection.recv(decode=True)  # a binary frame too, read as UTF-8 text
            except ConnectionClosed as closed:
                await self._socket.aclose()
                raise SocketDropped(f"The WebSocket closed mid-response ({_reason(closed)}).") from None
            self._on_frame("received", text)
            event = parse_event("", text, time.perf_counter())
            if event is None:
                continue
            if isinstance(event, ErrorEvent):
                self._ended = True
                failure = _refusal(text, event)
                if isinstance(failure, StreamError):  # a failure after the response began: on its timeline
                    yield event
                raise failure
            if isinstance(event, ResponseEvent) and event.is_final:
                self._ended = True
                self.state.response = event.response
                yield event
                return
            yield event


def _refusal(text: str, event: ErrorEvent) -> ApiError:
    """An `error` event: the typed error of its status when it has one (a refused message), as over HTTP;
    else the stream's failure after it began."""
    fields = _json(text.encode())
    status = fields.get("status") if isinstance(fields, dict) else None
    if not isinstance(status, int) or status < 400:
        return StreamError(event.message or "The response failed (no reason given).", event.code)
    error = fields.get("error") if isinstance(fields.get("error"), dict) else fields
    headers = error.get("headers") if isinstance(error.get("headers"), dict) else {}
    return status_error(status, {"error": error}, {str(k).lower(): str(v) for k, v in headers.items()})


def _json(content: bytes | bytearray | None) -> Any:
    try:
        return json.loads(content) if content else None
    except ValueError:
        return None


def _reason(closed: ConnectionClosed) -> str:
    received = closed.rcvd
    if received is None:
        return "no close frame"
    return f"code {received.code}" + (f": {received.reason}" if received.reason else "")
