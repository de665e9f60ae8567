"""Server-Sent Events of a streamed response, as an async iterator of typed events (through httpx-sse).

The stream closes its response in `finally`, so cancelling the consuming task releases the connection.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from httpx_sse import EventSource, SSEError

from .errors import ConnectionFailed, InvalidResponse, StreamError
from .output import output_text

DELTA_TYPES = frozenset({"response.output_text.delta", "response.text.delta"})  # CONTRACT.md: accept both


@dataclass(frozen=True)
class StreamEvent:
    type: str
    data: dict[str, Any]
    received_at: float  # time.perf_counter() when it arrived

    @property
    def is_text_delta(self) -> bool:
        return self.type in DELTA_TYPES

    @property
    def delta(self) -> str:
        return str(self.data.get("delta", "")) if self.is_text_delta else ""


@dataclass
class StreamState:
    """What a stream has shown so far: kept when the stream breaks, so nothing already seen is lost."""

    chunks: list[str] = field(default_factory=list)  # joined on demand: += on a str is quadratic here
    response: dict[str, Any] | None = None  # the final response (completed, incomplete or failed)
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


class ResponseStream:
    """`async for event in stream` yields StreamEvents; `stream.state` holds the text and final response."""

    def __init__(self, response_cm: Any) -> None:
        self._response_cm = response_cm
        self.state = StreamState()
        self.response: httpx.Response | None = None  # open while streaming; closed after, even on cancel

    def __aiter__(self) -> AsyncIterator[StreamEvent]:
        return self._events()

    async def _events(self) -> AsyncIterator[StreamEvent]:
        state = self.state
        async with self._response_cm as response:
            self.response = response
            state.headers = dict(response.headers)
            source = EventSource(response)
            try:
                async for sse in source.aiter_sse():
                    if not sse.data:
                        continue
                    try:
                        data = json.loads(sse.data)
                    except ValueError:
                        raise InvalidResponse(
                            f"The server sent a malformed event: {sse.data[:80]!r}."
                        ) from None
                    if not isinstance(data, dict):
                        raise InvalidResponse("The server sent an event that is not a JSON object.")
                    event = StreamEvent(str(data.get("type") or sse.event), data, time.perf_counter())
                    self._absorb(event)
                    yield event
                    if event.type == "error":
                        raise StreamError(str(data.get("message") or "The stream failed."), data.get("code"))
            except SSEError as error:
                raise InvalidResponse(f"The server did not answer with an event stream: {error}.") from None
            except (httpx.RemoteProtocolError, httpx.ReadError, httpx.NetworkError) as error:
                raise ConnectionFailed(
                    f"The connection was lost mid-stream: {error or type(error).__name__}."
                ) from None
            except httpx.TimeoutException:
                raise ConnectionFailed("The stream stalled: no event arrived in time.") from None
        if not state.finished:
            raise ConnectionFailed("The stream ended before the response was complete.")

    def _absorb(self, event: StreamEvent) -> None:
        state = self.state
        if event.is_text_delta:
            if state.first_token_at is None:
                state.first_token_at = event.received_at
            state.chunks.append(event.delta)
        elif event.type in ("response.completed", "response.incomplete", "response.failed"):
            state.response = event.data.get("response")


async def collect(stream: ResponseStream) -> tuple[dict[str, Any], str]:
    """Run a stream to its end; returns the final response and its output_text."""
    async for _ in stream:
        pass
    assert stream.state.response is not None
    return stream.state.response, output_text(stream.state.response)
