"""A stream that looks finished but is not, and one that never sends an event."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from app.api import ConnectionSettings, InvalidResponse, ServiceClient, TimedOut
from tests.api.servers import comment_server, raw_server, sse, sse_head

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    "response",
    [{"object": "response", "status": "completed"}, {"object": "response", "id": "resp_1"}, {}],
)
async def test_a_completed_event_without_id_or_status_is_no_success(response: dict[str, str]) -> None:
    completed = json.dumps({"type": "response.completed", "response": response})
    with raw_server(sse_head() + sse("response.completed", completed)) as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            with pytest.raises(InvalidResponse, match="response has no"):
                async with client.responses.stream({"model": "m", "input": "x"}) as stream:
                    async for _ in stream:
                        pass
            assert not stream.state.finished


async def test_a_server_sending_only_comments_meets_the_idle_deadline() -> None:
    with comment_server() as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            started = time.monotonic()
            with pytest.raises(TimedOut, match="only keep-alive comments"):
                async with client.responses.stream({"model": "m", "input": "x"}) as stream:
                    stream.idle_timeout = 0.2  # four comments' time: they do not count as events
                    async for _ in stream:
                        pass
            assert 0.2 <= time.monotonic() - started < 5


async def test_the_idle_deadline_counts_waits_for_events_not_the_readers_own_work() -> None:
    """The deadline is one watchdog per stream: a reader slower than it between events is not timed out,
    and a cancel from outside (Stop) stays a cancel, not a stalled stream."""
    response = {"object": "response", "id": "resp_1", "status": "completed", "output": []}
    delta = json.dumps({"type": "response.output_text.delta", "delta": "hi"})
    completed = json.dumps({"type": "response.completed", "response": response})
    reply = sse_head() + sse("", delta) * 2 + sse("response.completed", completed)
    with raw_server(reply) as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            async with client.responses.stream({"model": "m", "input": "x"}) as stream:
                stream.idle_timeout = 0.1
                seen = []
                async for event in stream:
                    seen.append(event.type)
                    await asyncio.sleep(0.15)  # past the deadline, but not spent waiting for the server
            assert seen[-1] == "response.completed" and stream.state.finished
    with comment_server() as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:

            async def read() -> None:
                async with client.responses.stream({"model": "m", "input": "x"}) as stream:
                    stream.idle_timeout = 5
                    async for _ in stream:
                        pass

            task = asyncio.ensure_future(read())
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
