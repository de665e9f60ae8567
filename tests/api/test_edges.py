"""What real servers and proxies send that the sandbox never does, from small loopback peers: HTML error pages,
[DONE], resets, stalls, long Retry-After, bodies that fail to decompress, keep-alive connections dropped."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from app.api import (
    ConnectionFailed,
    ConnectionSettings,
    InvalidResponse,
    RateLimited,
    ServiceClient,
    StreamError,
    TextDeltaEvent,
    TimedOut,
    UnansweredWrite,
    collect,
)
from app.api.errors import ServerError
from app.api.transport import always_resend
from tests.api.servers import CLOSE, RESET, STALL, ScriptedServer, reply

pytestmark = pytest.mark.anyio

MODELS = reply("200 OK", b'{"object": "list", "data": [{"id": "m"}]}', {"content-type": "application/json"})
PAGE = b"<html><body><h1>502 Bad Gateway</h1>nginx</body></html>"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def client(url: str, **settings: Any) -> ServiceClient:
    return ServiceClient(ConnectionSettings(base_url=url, api_key="k", **settings))


def sse_reply(*events: dict[str, object] | str) -> bytes:
    lines = b""
    for data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        name = "" if isinstance(data, str) else f"event: {data['type']}\n"
        lines += f"{name}data: {text}\n\n".encode()
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
    return head + lines


def completed(text: str = "", **extra: object) -> dict[str, object]:
    content = [{"type": "output_text", "text": text, "annotations": []}] if text else []
    output = [{"type": "message", "id": "m1", "role": "assistant", "content": content}] if text else []
    return {
        "type": "response.completed",
        "response": {"id": "resp_1", "status": "completed", "output": output, **extra},
    }


async def test_html_error_pages_are_their_status_and_are_retried() -> None:
    page = reply("502 Bad Gateway", PAGE, {"content-type": "text/html"})
    with ScriptedServer([page, reply("503 Service Unavailable", b"busy"), MODELS]) as server:
        async with client(server.url, max_retries=2, backoff_base=0.05) as api:
            started = time.monotonic()
            assert await api.models() == ["m"]
            # Each retry after its backoff: at least half of 0.05 s, then of 0.1 s (the jitter takes up to half).
            assert len(server.requests) == 3 and time.monotonic() - started >= 0.075
    with ScriptedServer([page]) as server:
        async with client(server.url, max_retries=0) as api:
            with pytest.raises(ServerError) as caught:
                await api.models()
            assert (
                caught.value.status == 502
                and "web page" in str(caught.value)
                and "/v1" not in str(caught.value)
            )
    limited = reply("429 Too Many Requests", b"<html>slow down</html>", {"content-type": "text/html"})
    with ScriptedServer([limited]) as server:
        async with client(server.url, max_retries=0) as api:
            with pytest.raises(RateLimited):
                await api.models()


async def test_a_long_retry_after_is_handed_back_at_once() -> None:
    limited = reply(
        "429 Too Many Requests",
        b'{"error": {"message": "slow down", "type": "rate_limit_error"}}',
        {"retry-after": "3600", "content-type": "application/json"},
    )
    with ScriptedServer([limited]) as server:
        async with client(server.url, max_retries=2) as api:
            started = time.monotonic()
            with pytest.raises(RateLimited) as caught:
                await api.models()
            assert caught.value.retry_after == 3600 and time.monotonic() - started < 2
            assert len(server.requests) == 1


async def test_a_stalling_get_gives_up_at_the_deadline() -> None:
    with ScriptedServer([STALL, STALL]) as server:
        async with client(server.url, request_deadline=0.3) as api:
            started = time.monotonic()
            with pytest.raises(TimedOut, match=r"within 0\.3 s") as caught:
                await api.models()
            assert 0.3 <= time.monotonic() - started < 3
            assert isinstance(caught.value, ConnectionFailed)  # handled wherever a lost connection is


def test_the_default_deadline_is_well_under_a_minute() -> None:
    assert ConnectionSettings(base_url="http://x/v1").request_deadline <= 30


async def test_a_body_that_fails_to_decompress_is_invalid_response() -> None:
    broken = reply(
        "200 OK", b"this is not gzip", {"content-encoding": "gzip", "content-type": "application/json"}
    )
    with ScriptedServer([broken]) as server:
        async with client(server.url, max_retries=0) as api:
            with pytest.raises(InvalidResponse, match="could not be decoded"):
                await api.models()


async def test_a_dropped_keep_alive_connection_is_resent_once_when_safe() -> None:
    created = reply("201 Created", b'{"id": "ipal_1"}', {"content-type": "application/json"})
    with ScriptedServer([MODELS, CLOSE, created]) as server:
        async with client(server.url, max_retries=0) as api:
            await api.models()  # leaves a kept-alive connection
            checks = []

            async def not_there_yet() -> bool:
                checks.append(True)
                return True

            body, _ = await api.transport.request(
                "POST", "/things", json_body={"cidr": "10.0.0.0/8"}, resend_unanswered=not_there_yet
            )
            assert body == {"id": "ipal_1"} and checks == [True]
            assert [method for method, _, _ in server.requests] == ["GET", "POST", "POST"]


async def test_an_unanswered_write_is_not_resent_without_a_check() -> None:
    with ScriptedServer([MODELS, CLOSE]) as server:
        async with client(server.url, max_retries=0) as api:
            await api.models()
            with pytest.raises(UnansweredWrite, match="may or may not have been made"):
                await api.transport.request("POST", "/things", json_body={})
            assert len(server.requests) == 2
    done = reply("200 OK", b'{"enabled": true}', {"content-type": "application/json"})
    with ScriptedServer([MODELS, CLOSE, done]) as server:  # an idempotent write: always safe
        async with client(server.url, max_retries=0) as api:
            await api.models()
            body, _ = await api.transport.request(
                "PATCH", "/x", json_body={}, resend_unanswered=always_resend
            )
            assert body == {"enabled": True}


async def test_idle_connections_expire_before_uvicorns_keep_alive() -> None:
    from app.api import defaults

    assert defaults.KEEPALIVE_EXPIRY < 5  # uvicorn's default timeout_keep_alive
    async with client("http://127.0.0.1:9/v1") as api:
        pool = api.transport._client._transport._pool
        assert pool._keepalive_expiry == defaults.KEEPALIVE_EXPIRY


async def test_done_unknown_events_and_both_delta_names() -> None:
    events = sse_reply(
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.brand_new", "whatever": [1]},
        {"type": "response.output_text.delta", "delta": "Hello ", "novel": 1},
        {"type": "response.text.delta", "delta": "world"},
        completed("Hello world"),
        "[DONE]",
    )
    with ScriptedServer([events]) as server:
        async with client(server.url, max_retries=0) as api:
            async with api.responses.stream({"model": "m", "input": "x"}) as stream:
                deltas = [event.delta async for event in stream if isinstance(event, TextDeltaEvent)]
            final = stream.state.response
            assert final is not None and final.output_text == "Hello world" == "".join(deltas)
            assert final.id == "resp_1"


@pytest.mark.parametrize(
    ("events", "error", "said"),
    [
        ([{"type": "response.completed", "response": "done"}], InvalidResponse, "response is not an object"),
        (["{not json"], InvalidResponse, "malformed event"),
        ([{"type": "error", "error": {"message": "overloaded"}}], StreamError, "overloaded"),
        ([{"type": "error"}], StreamError, "no reason given"),
        (["[DONE]"], ConnectionFailed, "no final event"),
    ],
)
async def test_malformed_streams_are_typed_errors(
    events: list[str], error: type[Exception], said: str
) -> None:
    with ScriptedServer([sse_reply(*events)]) as server:
        async with client(server.url, max_retries=0) as api:
            with pytest.raises(error, match=said):
                await collect(api.responses.stream({"model": "m", "input": "x"}))


async def test_a_reset_mid_stream_names_its_cause() -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    data = b'data: {"type": "response.output_text.delta", "delta": "Partial"}\n\n'
    chunk = b"%x\r\n%s\r\n" % (len(data), data)
    with ScriptedServer([RESET + head + chunk]) as server:
        async with client(server.url, max_retries=0) as api:
            seen: list[str] = []
            with pytest.raises(ConnectionFailed) as caught:
                async with api.responses.stream({"model": "m", "input": "x"}) as stream:
                    async for event in stream:
                        seen += [event.delta] if isinstance(event, TextDeltaEvent) else []
            message = str(caught.value)
            assert (
                "mid-stream" in message and not message.endswith(": .") and len(message.split(": ", 1)[1]) > 2
            )
            assert seen == ["Partial"]


async def test_a_stream_answered_with_an_html_502_is_retried() -> None:
    page = reply("502 Bad Gateway", PAGE, {"content-type": "text/html"})
    with ScriptedServer([page, sse_reply(completed("ok"))]) as server:
        async with client(server.url, max_retries=1, backoff_base=0.05) as api:
            _, text = await collect(api.responses.stream({"model": "m", "input": "x"}))
            assert text == "ok" and len(server.requests) == 2


async def test_a_stream_whose_reused_connection_drops_unanswered_is_sent_again() -> None:
    with ScriptedServer([MODELS, CLOSE, sse_reply(completed("again"))]) as server:
        async with client(server.url, max_retries=0) as api:
            await api.models()
            _, text = await collect(api.responses.stream({"model": "m", "input": "x"}))
            assert text == "again" and [m for m, _, _ in server.requests] == ["GET", "POST", "POST"]


def quick_client(url: str, connect: float = 5.0, read: float = 5.0) -> ServiceClient:
    """A client whose connect and read timeouts and retry backoff fit in a test (the defaults are seconds to
    minutes; the backoff 0.5 s and more)."""
    http = httpx.AsyncClient(timeout=httpx.Timeout(read, connect=connect))
    # A stream's wait for its head is its own deadline (minutes by default, for buffering proxies): as short.
    settings = ConnectionSettings(
        base_url=url, api_key="k", max_retries=2, first_byte_deadline=read, backoff_base=0.1
    )
    return ServiceClient(settings, http=http)


async def fetch(api: ServiceClient, kind: str) -> str:
    """A GET of the model list, or a streamed POST /responses: the two ways a call goes through the transport."""
    if kind == "request":
        models: list[str] = await api.models()
        return models[0]
    text: str
    _, text = await collect(api.responses.stream({"model": "m", "input": "x"}))
    return text


ANSWER = {"request": MODELS, "stream": sse_reply(completed("m"))}


@pytest.mark.parametrize("kind", ["request", "stream"])
async def test_a_refused_connection_is_retried_for_requests_and_streams(kind: str) -> None:
    with ScriptedServer([ANSWER[kind]], refuse_for=0.1) as server:
        async with quick_client(server.url) as api:
            assert await fetch(api, kind) == "m"
            assert len(server.requests) == 1  # the refused attempts never reached it


@pytest.mark.parametrize("kind", ["request", "stream"])
async def test_a_connect_timeout_is_retried_for_requests_and_streams(kind: str) -> None:
    """Nothing was sent when no connection was made, so a POST that opens a stream is as safe to repeat as a
    GET (the stream loop once retried only a refused connection, not a timed-out one)."""
    with ScriptedServer([ANSWER[kind]], unreachable_for=0.2) as server:
        async with quick_client(server.url, connect=0.2) as api:
            started = time.monotonic()
            assert await fetch(api, kind) == "m"
            # Past the connect timeout, and well before the kernel's own second SYN (at 1 s) would have
            # connected the first attempt: the attempt after the timeout did.
            assert 0.2 <= time.monotonic() - started < 1 and len(server.requests) == 1


@pytest.mark.parametrize(("kind", "sent"), [("request", 2), ("stream", 1)])
async def test_a_read_timeout_is_retried_for_a_get_only(kind: str, sent: int) -> None:
    """A POST whose answer stalled may have been processed: it is not sent again; a GET is."""
    with ScriptedServer([STALL, ANSWER[kind]]) as server:
        async with quick_client(server.url, read=0.3) as api:
            if sent == 2:
                assert await fetch(api, kind) == "m"
            else:
                with pytest.raises(TimedOut):
                    await fetch(api, kind)
            assert len(server.requests) == sent


async def test_collect_closes_the_stream_when_cancelled() -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
    data = b'data: {"type": "response.output_text.delta", "delta": "Partial"}\n\n'
    # One event, then nothing: the stream waits for more until it is cancelled.
    with ScriptedServer([head + b"%x\r\n%s\r\n" % (len(data), data)]) as server:
        async with client(server.url, max_retries=0) as api:
            stream = api.responses.stream({"model": "m", "input": "x"})
            task = asyncio.create_task(collect(stream))
            while stream.response is None:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert stream.response.is_closed
