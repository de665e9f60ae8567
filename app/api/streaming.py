"""Server-Sent Events of a streamed response, as an async iterator of typed events (through httpx-sse).

The stream closes its response in `finally`, so cancelling the consuming task releases the connection.
Every way a stream can go wrong ends in a typed ApiError with a sentence that names the cause.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from . import defaults
from .errors import ApiError, ConnectionFailed, InvalidResponse, StreamError, TimedOut
from .events import ErrorEvent, ResponseEvent, StreamEvent, TextDelta, parse_event
from .wire import Response


@dataclass
class StreamState:
    """What a stream has shown so far: kept when the stream breaks, so nothing already seen is lost."""

    chunks: list[str] = field(default_factory=list)  # joined on demand: += on a str is quadratic here
    response: Response | None = None  # the final response (completed, incomplete or failed)
    headers: dict[str, str] = field(default_factory=dict)
    started_at: float = field(default_factory=time.perf_counter)
    first_token_at: float | None = None

    @property
    def text(self) -> str:
        if len(self.chunks) > 1:
            self.chunks[:] = ["".join(self.chunks)]
        return self.chunks[0] if self.chunks else ""

    @property
    def finished(self) -> bool:
        return self.response is not None


def describe(error: BaseException) -> str:
    """A reason that is never empty: httpx errors often carry no text (a bare reset)."""
    text = str(error).strip()
    return text or {
        "ReadError": "the server closed the connection",
        "RemoteProtocolError": "the server broke off the answer",
        "WriteError": "the request could not be sent",
    }.get(type(error).__name__, type(error).__name__)


def stream_failure(error: httpx.HTTPError) -> ApiError:
    """The typed error for something httpx raised while reading a stream."""
    if isinstance(error, httpx.TimeoutException):
        return TimedOut("The stream stalled: no event arrived in time.")
    if isinstance(error, httpx.DecodingError):
        return InvalidResponse(f"The server's stream could not be decoded: {describe(error)}.")
    return ConnectionFailed(f"The connection was lost mid-stream: {describe(error)}.")


class ResponseStream:
    """`async for event in stream` yields typed events; `stream.state` holds the text and final response."""

    def __init__(self, response_cm: AbstractAsyncContextManager[httpx.Response]) -> None:
        self._response_cm = response_cm
        self.state = StreamState()
        self.response: httpx.Response | None = None  # open while streaming; closed after, even on cancel
        self._iterator: AsyncGenerator[StreamEvent, None] | None = None
        self.idle_timeout = defaults.READ_TIMEOUT  # seconds between two events (comments do not count)

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        self._iterator = self._events()
        return self._iterator

    async def aclose(self) -> None:
        """Close the response now. A loop left by `break` or by an error in its body otherwise leaves the
        connection open, the server still writing, until the collector finalizes the iterator."""
        if self._iterator is not None:
            await self._iterator.aclose()

    async def _events(self) -> AsyncGenerator[StreamEvent, None]:
        async with self._response_cm as response:
            self.response = response
            self.state.headers = dict(response.headers)
            try:
                async for sse in self._with_idle_deadline(EventSource(response).aiter_sse()):
                    if not sse.data:
                        continue
                    event = parse_event(sse.event, sse.data, time.perf_counter())
                    if event is None:  # [DONE]: nothing follows
                        break
                    self._absorb(event)
                    yield event
                    if isinstance(event, ErrorEvent):
                        raise StreamError(event.message or "The stream failed (no reason given).", event.code)
            except SSEError as error:
                raise InvalidResponse(f"The server did not answer with an event stream: {error}.") from None
            except httpx.HTTPError as error:
                raise stream_failure(error) from None
        if not self.state.finished:
            raise ConnectionFailed("The stream ended before the response was complete (no final event).")

    async def _with_idle_deadline(
        self, events: AsyncIterator[ServerSentEvent]
    ) -> AsyncIterator[ServerSentEvent]:
        """The events, each within `idle_timeout` of the one before. httpx's read timeout restarts at every
        byte, so a server sending only `: keep-alive` comments (which are no events) would hold the console
        for ever; this deadline counts events only."""
        iterator = aiter(events)
        while True:
            try:
                async with asyncio.timeout(self.idle_timeout):
                    sse = await anext(iterator)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise TimedOut(
                    f"The stream stalled: no event arrived in {self.idle_timeout:g} s "
                    "(the server sent nothing, or only keep-alive comments)."
                ) from None
            yield sse

    def _absorb(self, event: StreamEvent) -> None:
        state = self.state
        if isinstance(event, TextDelta):
            if state.first_token_at is None:
                state.first_token_at = event.received_at
            state.chunks.append(event.delta)
        elif isinstance(event, ResponseEvent) and event.is_final:
            state.response = event.response


async def collect(stream: ResponseStream) -> tuple[Response, str]:
    """Run a stream to its end; returns the final response and its output_text."""
    async for _ in stream:
        pass
    if stream.state.response is None:  # _events raises first; this keeps the type exact
        raise ConnectionFailed("The stream ended before the response was complete (no final event).")
    return stream.state.response, stream.state.response.output_text
