"""Server-Sent Events of a streamed response, as an async iterator of typed events (through httpx-sse).

The stream closes its response in `finally`, so cancelling the consuming task releases the connection.
Every way a stream can go wrong ends in a typed ApiError with a sentence that names the cause.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import httpx
from httpx_sse import EventSource, ServerSentEvent, SSEError

from . import defaults
from .errors import ApiError, ConnectionFailed, InvalidResponse, StreamError, TimedOut
from .events import ErrorEvent, Event, ResponseEvent, parse_event
from .network_errors import describe
from .wire import Response


@dataclass
class StreamState:
    """What a stream has told beyond its events: the answer's headers, and the final response (completed,
    incomplete or failed) once it came. The text is the consumer's to keep (a turn keeps it): one buffer."""

    response: Response | None = None
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.response is not None


def stream_failure(error: httpx.HTTPError) -> ApiError:
    """The typed error for something httpx raised while reading a stream."""
    if isinstance(error, httpx.TimeoutException):
        return TimedOut("The stream stalled: no event arrived in time.")
    if isinstance(error, httpx.DecodingError):
        return InvalidResponse(f"The server's stream could not be decoded: {describe(error)}.")
    return ConnectionFailed(f"The connection was lost mid-stream: {describe(error)}.")


class ResponseStream:
    """One streamed response: `async with client.responses.stream(body) as stream:` sends the request and
    waits for the answer's head (errors such as a 403 raise there); `async for event in stream` yields typed
    events; leaving the block closes the response in `finally`, whatever ended it (the end, `break`, an
    error, a cancel), so the server hears at once that nobody reads any more."""

    def __init__(self, open_response: Callable[[], Awaitable[httpx.Response]]) -> None:
        self._open_response = open_response
        self.state = StreamState()
        self.response: httpx.Response | None = None  # open while streaming; closed after, even on cancel
        self._iterator: AsyncGenerator[Event, None] | None = None
        self.idle_timeout = defaults.READ_TIMEOUT  # seconds between two events (comments do not count)

    async def __aenter__(self) -> ResponseStream:
        self.response = await self._open_response()
        self.state.headers = dict(self.response.headers)
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncIterator[Event]:
        if self.response is None:
            raise RuntimeError("A ResponseStream is read inside `async with`, which opens and closes it.")
        self._iterator = self._events(self.response)
        return self._iterator

    async def aclose(self) -> None:
        """Close the response now (leaving `async with` does); closing twice is harmless."""
        try:
            if self._iterator is not None:
                await self._iterator.aclose()
        finally:
            if self.response is not None:
                await self.response.aclose()

    async def _events(self, response: httpx.Response) -> AsyncGenerator[Event, None]:
        try:
            async for sse in self._with_idle_deadline(EventSource(response).aiter_sse()):
                if not sse.data:
                    continue
                event = parse_event(sse.event, sse.data, time.perf_counter())
                if event is None:  # [DONE]: nothing follows
                    break
                match event:
                    case ResponseEvent() if event.is_final:
                        self.state.response = event.response
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
        for ever; this deadline counts events only.

        One watchdog timer per `idle_timeout`, not one per event: `asyncio.timeout` around each event armed
        and cancelled a timer every time, and under qasync each is a Qt timer (a tenth of a streamed turn's
        loop work). The watchdog wakes at the earliest moment the wait could have run out and cancels the
        wait only when it truly has."""
        loop = asyncio.get_running_loop()
        iterator = aiter(events)
        watch = _IdleWatch(loop, self.idle_timeout)
        try:
            while True:
                watch.waiting()
                try:
                    sse = await anext(iterator)
                except StopAsyncIteration:
                    return
                except asyncio.CancelledError:
                    if watch.expired():
                        raise TimedOut(
                            f"The stream stalled: no event arrived in {self.idle_timeout:g} s "
                            "(the server sent nothing, or only keep-alive comments)."
                        ) from None
                    raise
                watch.arrived()
                yield sse
        finally:
            watch.close()


class _IdleWatch:
    """Cancels the task waiting for the next event once it has waited `limit` seconds (a lazily re-armed
    timer: an event that arrives only moves the deadline, the timer checks it when it fires)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, limit: float) -> None:
        self._loop = loop
        self._limit = limit
        self._since: float | None = None  # when the current wait began; None between waits
        self._task: asyncio.Task[object] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._fired = False

    def waiting(self) -> None:
        self._since = self._loop.time()
        self._task = asyncio.current_task()
        if self._timer is None:
            self._timer = self._loop.call_at(self._since + self._limit, self._check)

    def arrived(self) -> None:
        self._since = None

    def _check(self) -> None:
        self._timer = None
        now = self._loop.time()
        if self._since is None:  # between waits (the consumer is busy): look again a whole limit later
            self._timer = self._loop.call_at(now + self._limit, self._check)
        elif now - self._since >= self._limit and self._task is not None:
            self._fired = True
            self._task.cancel()
        else:
            self._timer = self._loop.call_at(self._since + self._limit, self._check)

    def expired(self) -> bool:
        """Whether the cancel being raised is this watch's own (then it is taken back: a TimedOut follows)."""
        if not self._fired or self._task is None:
            return False
        self._fired = False
        return self._task.uncancel() == 0

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


async def collect(stream: ResponseStream) -> tuple[Response, str]:
    """Open a stream, run it to its end and close it (a cancel closes it too); returns the final response
    and its output_text."""
    async with stream:
        async for _ in stream:
            pass
    if stream.state.response is None:  # _events raises first; this keeps the type exact
        raise ConnectionFailed("The stream ended before the response was complete (no final event).")
    return stream.state.response, stream.state.response.output_text
