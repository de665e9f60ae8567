"""WebSocket mode from the console's side, against the sandbox: a conversation's turns over one socket, the
frames each turn keeps for the inspector, the errors as over HTTP, the `store: false` recovery, and a socket
that drops (opened again once, then HTTP)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from app.api import ConnectionSettings, ServiceClient
from app.api.requests import ResponseCreateParams
from app.core.playground.socket_channel import SocketChannel, whole_history
from app.core.playground.turn_runner import TurnRun
from app.core.playground.turns import ErrorKind, RequestOptions, Turn, TurnStatus, build_request
from tests.conftest import Sandbox, SandboxFactory

pytestmark = pytest.mark.anyio
MODEL = "service-pro"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def client_of(sandbox: Sandbox, key: str | None = None) -> ServiceClient:
    settings = ConnectionSettings(
        base_url=sandbox.url, api_key=key or sandbox.creds.api_key, forwarded_for="127.0.0.1", max_retries=0
    )
    return ServiceClient(settings)


def new_turn(earlier: Sequence[Turn], prompt: str, **extra: Any) -> Turn:
    plan = build_request(earlier, prompt, [], RequestOptions(MODEL))
    body: ResponseCreateParams = {**plan.body, **extra}  # type: ignore[typeddict-item]
    return Turn(prompt, [], MODEL, plan.chained, request_body=body)


async def run(
    turn: Turn, client: ServiceClient, channel: SocketChannel | None, earlier: Sequence[Turn] = ()
) -> Turn:
    runner = TurnRun(turn, lambda _chunk: None, lambda: None)
    runner.channel = channel
    runner.unchained = lambda body: whole_history(earlier, turn, body)
    await runner.run(client)
    return turn


def frames(turn: Turn, direction: str) -> list[str]:
    assert turn.socket is not None
    return [frame.text for frame in turn.socket.frames if frame.direction == direction]


def sent(turn: Turn) -> list[dict[str, Any]]:
    return [json.loads(text) for text in frames(turn, "sent")]


async def test_a_turn_over_the_socket_answers_as_over_http_and_keeps_its_frames(sandbox: Sandbox) -> None:
    key = sandbox.creds.api_key
    async with client_of(sandbox) as client:
        over_http = await run(new_turn([], "Say hello"), client, None)
        over_socket = await run(new_turn([], "Say hello"), client, SocketChannel())
    assert over_socket.status == TurnStatus.COMPLETED and over_socket.text == over_http.text != ""
    assert over_http.socket is None  # HTTP turns have no frames
    upgrade = frames(over_socket, "upgrade")
    assert upgrade[0].startswith(f"GET {sandbox.url.replace('http', 'ws', 1)}/responses ")
    assert upgrade[1].startswith("101")
    # As the official client sends it: the body with its type, without the HTTP-only `stream`.
    assert sent(over_socket) == [{"type": "response.create", "model": MODEL, "input": "Say hello"}]
    received = [json.loads(text)["type"] for text in frames(over_socket, "received")]
    assert received[0] == "response.created" and received[-1] == "response.completed"
    assert [entry.type for entry in over_socket.timeline] == received
    # The key went in the upgrade's header only: in no frame, no URL.
    assert over_socket.socket is not None
    assert all(key not in frame.text for frame in over_socket.socket.frames)


async def test_a_conversation_goes_over_one_socket_chained_by_previous_response_id(sandbox: Sandbox) -> None:
    channel = SocketChannel()
    async with client_of(sandbox) as client:
        first = await run(new_turn([], "Name a colour"), client, channel)
        second = await run(new_turn([first], "And another"), client, channel, [first])
    assert second.status == TurnStatus.COMPLETED
    assert sent(second)[0]["previous_response_id"] == first.response_id
    assert frames(second, "upgrade") == []  # the first turn's socket carried it


async def test_a_refused_message_is_the_error_http_gives_and_the_socket_goes_on(sandbox: Sandbox) -> None:
    channel = SocketChannel()
    async with client_of(sandbox) as client:
        over_http = await run(new_turn([], "Hi", temperature=7), client, None)
        refused = await run(new_turn([], "Hi", temperature=7), client, channel)
        after = await run(new_turn([], "Hi"), client, channel)
    assert refused.status == over_http.status == TurnStatus.FAILED
    assert refused.error == over_http.error and "temperature" in refused.error
    assert refused.error_kind == over_http.error_kind == ErrorKind.OTHER
    assert after.status == TurnStatus.COMPLETED and frames(after, "upgrade") == []


async def test_a_refused_key_at_the_upgrade_is_the_401_http_gives(sandbox: Sandbox) -> None:
    async with client_of(sandbox, key="sk-proj-not-a-key-of-this-sandbox") as client:
        over_http = await run(new_turn([], "Hi"), client, None)
        over_socket = await run(new_turn([], "Hi"), client, SocketChannel())
    assert over_socket.error_kind == over_http.error_kind == ErrorKind.UNAUTHORIZED
    assert over_socket.error == over_http.error
    assert frames(over_socket, "upgrade")[-1].startswith("401")


async def test_a_store_false_chain_the_new_socket_does_not_know_is_sent_again_whole(sandbox: Sandbox) -> None:
    channel = SocketChannel()
    async with client_of(sandbox) as client:
        first = await run(new_turn([], "Name a colour", store=False), client, channel)
        await channel.aclose()  # the socket that kept the unstored response is gone
        second = await run(new_turn([first], "And another", store=False), client, channel, [first])
    assert second.status == TurnStatus.COMPLETED and second.text
    chained, whole = sent(second)
    assert chained["previous_response_id"] == first.response_id
    assert "previous_response_id" not in whole and whole["store"] is False
    assert [item["role"] for item in whole["input"]] == ["user", "assistant", "user"]
    assert second.socket is not None and "previous_response_not_found" in second.socket.notes[0]


async def test_a_dropped_socket_is_opened_again_and_the_request_sent_again(sandbox: Sandbox) -> None:
    channel = SocketChannel()
    async with client_of(sandbox) as client:
        first = await run(new_turn([], "Name a colour"), client, channel)
        connection = channel.socket_for(client)._connection
        assert connection is not None
        connection.transport.abort()  # the network drops it: no close frame
        second = await run(new_turn([first], "And another"), client, channel, [first])
    assert second.status == TurnStatus.COMPLETED and second.text
    assert [line[:3] for line in frames(second, "upgrade")] == ["GET", "101"] and channel.in_use
    assert second.socket is not None and "opened again" in second.socket.notes[0]


@contextmanager
def dropping_peer() -> Iterator[str]:
    """A peer that takes each connection and closes it at once: no upgrade ever completes."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"ws://127.0.0.1:{listener.getsockname()[1]}/v1/responses"
    finally:
        stop.set()
        thread.join()
        listener.close()


async def test_a_socket_that_drops_twice_falls_back_to_http_saying_so(sandbox: Sandbox) -> None:
    channel = SocketChannel()
    async with client_of(sandbox) as client:
        with dropping_peer() as url:
            channel.socket_for(client).url = url
            turn = await run(new_turn([], "Say hello"), client, channel)
    assert turn.status == TurnStatus.COMPLETED and turn.text  # answered over HTTP: nothing lost
    assert not channel.in_use and "went over HTTP" in channel.fallback
    assert turn.socket is not None and turn.socket.notes[-1] == channel.fallback
    assert [line[:3] for line in frames(turn, "upgrade")] == ["GET", "GET"] and frames(turn, "sent") == []


async def test_a_rate_limited_message_is_the_429_http_gives_with_its_wait(
    sandbox_factory: SandboxFactory,
) -> None:
    limited = sandbox_factory(rate_limit_per_minute=2)  # the upgrade and the first message
    channel = SocketChannel()
    async with client_of(limited) as client:
        first = await run(new_turn([], "Hi"), client, channel)
        runner = TurnRun(new_turn([first], "Again"), lambda _chunk: None, lambda: None)
        runner.channel = channel
        task = asyncio.ensure_future(runner.run(client))
        while runner.turn.status != TurnStatus.WAITING and not task.done():
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    turn = runner.turn
    # The socket's `error` event carries the wait as its headers do over HTTP: the turn counts it down.
    assert first.status == TurnStatus.COMPLETED
    assert turn.retry_after is not None and 1 <= turn.retry_after <= 60


async def test_the_socket_goes_through_the_profile_s_proxy(sandbox: Sandbox) -> None:
    from tests.api.loopback_proxy import loopback_proxy

    with loopback_proxy() as proxy:
        settings = ConnectionSettings(
            base_url=sandbox.url, api_key=sandbox.creds.api_key, forwarded_for="127.0.0.1", proxy=proxy.url
        )
        async with ServiceClient(settings) as client:
            turn = await run(new_turn([], "Say hello"), client, SocketChannel())
    assert turn.status == TurnStatus.COMPLETED and turn.socket is not None and not turn.socket.notes
    assert any(head.startswith(b"CONNECT 127.0.0.1:") for head in proxy.requests)


async def test_a_response_failing_mid_stream_is_the_failure_http_shows(
    sandbox_factory: SandboxFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = sandbox_factory()
    engine = failing.server.state.engine
    run_engine = engine.run

    async def breaks_after_a_step(conversation: Any) -> AsyncIterator[Any]:
        async for step in run_engine(conversation):
            yield step
            raise RuntimeError("the model fell over")

    monkeypatch.setattr(engine, "run", breaks_after_a_step)
    channel = SocketChannel()
    async with client_of(failing) as client:
        over_http = await run(new_turn([], "Say hello"), client, None)
        over_socket = await run(new_turn([], "Say hello"), client, channel)
        after = await run(new_turn([], "Hi"), client, channel)
    assert over_socket.error == over_http.error and "the model fell over" in over_socket.error
    assert (over_socket.status, over_socket.error_kind) == (over_http.status, over_http.error_kind)
    assert over_socket.timeline[-1].type == over_http.timeline[-1].type == "error"
    assert frames(after, "upgrade") == []  # the socket stays open for the next request
