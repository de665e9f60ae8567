"""An engine that answers one request at a time (the local engine's shape), served to many clients: requests
wait their turn and say so, the least recently served client goes next, a client that leaves (streamed or
not) ends its answer or its wait at once, and an input longer than the model's context is a 400 before any
event. A stand-in engine plays the model, so these run without weights (tests/sandbox/test_local_engine.py
has the same with real ones)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import Any

import httpx
import pytest

from app.sandbox.engines.base import Conversation, Step, TextDelta, TokenizerUsage
from app.sandbox.engines.turns import TurnLine
from tests.conftest import Sandbox, SandboxFactory

CONTEXT = 1000  # the stand-in model's context, in its tokens (two per word)


class OneAtATime:
    """Answers "word " every 10 ms until the test lets the answer end (`finish`) or 3,000 words. Its
    tokenizer makes two tokens of every word (twice the sandbox's estimate), its context holds 1,000.
    Notes when each answer begins and ends."""

    name = "local"
    counts_tokens = True

    def __init__(self) -> None:
        self.line = TurnLine()
        self.begun: list[str] = []
        self.ended: dict[str, float] = {}
        self.finish: dict[str, threading.Event] = {}

    def line_for(self, model: str) -> TurnLine:
        return self.line

    def context_window(self, model: str) -> int:
        return CONTEXT

    async def excess_tokens(self, conversation: Conversation) -> int:
        words = sum(len(message.text().split()) for message in conversation.messages)
        return 2 * words + 1 - CONTEXT

    def let_finish(self, text: str) -> None:
        self.finish.setdefault(text, threading.Event()).set()

    async def run(self, conversation: Conversation) -> AsyncGenerator[Step, None]:
        text = conversation.last_user_text()
        finish = self.finish.setdefault(text, threading.Event())
        self.begun.append(text)
        try:
            words = 0
            while not finish.is_set() and words < 3000:
                await asyncio.sleep(0.01)
                words += 1
                yield TextDelta("word ")
            yield TokenizerUsage(len(text.split()), words)
        finally:
            self.ended[text] = time.monotonic()


@pytest.fixture
def engine_sandbox(sandbox_factory: SandboxFactory) -> Iterator[tuple[Sandbox, OneAtATime]]:
    sandbox = sandbox_factory()
    engine = OneAtATime()
    sandbox.server.state.engine = engine
    yield sandbox, engine
    for event in engine.finish.values():
        event.set()  # answers still running end, so the server stops at once


def wait_for(condition: Callable[[], object], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class Events:
    """The events of a stream being read, taken a few at a time (the stream closes with this object)."""

    def __init__(self, response: httpx.Response) -> None:
        self.lines = response.iter_lines()

    def take(self, count: int = 10_000) -> list[dict[str, Any]]:
        """The next `count` events (fewer when the stream ends first)."""
        events: list[dict[str, Any]] = []
        for line in self.lines:
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if len(events) == count:
                    break
        return events


def body(text: str | list[dict[str, str]], **fields: Any) -> dict[str, Any]:
    return {"model": "service-pro", "input": text, "max_output_tokens": 5000, **fields}


def test_a_request_behind_another_is_queued_and_says_so(engine_sandbox: tuple[Sandbox, OneAtATime]) -> None:
    sandbox, engine = engine_sandbox
    with (
        sandbox.api() as first_client,
        sandbox.api() as second_client,
        first_client.stream("POST", "/responses", json=body("first", stream=True)) as first,
    ):
        first_events = Events(first)  # kept: dropping a reader closes its stream
        first_events.take(3)  # created, in_progress, the message: the first answer holds the turn
        with second_client.stream("POST", "/responses", json=body("second", stream=True)) as second:
            events = Events(second)
            created, queued = events.take(2)
            assert created["type"] == "response.created" and created["response"]["status"] == "queued"
            assert queued["type"] == "response.queued" and queued["response"]["status"] == "queued"
            assert engine.begun == ["first"]
            engine.let_finish("first")
            (in_progress,) = events.take(1)
            assert in_progress["type"] == "response.in_progress"
            assert in_progress["response"]["status"] == "in_progress"
            engine.let_finish("second")
            assert events.take()[-1]["type"] == "response.completed"
    assert engine.begun == ["first", "second"]


def test_a_request_with_the_model_free_goes_at_once_unqueued(
    engine_sandbox: tuple[Sandbox, OneAtATime],
) -> None:
    sandbox, engine = engine_sandbox
    engine.let_finish("alone")
    with (
        sandbox.api() as client,
        client.stream("POST", "/responses", json=body("alone", stream=True)) as stream,
    ):
        types = [event["type"] for event in Events(stream).take()]
    assert types[:2] == ["response.created", "response.in_progress"] and "response.queued" not in types


def test_the_client_served_least_recently_goes_next() -> None:
    line = TurnLine()
    suite = [line.join("suite") for _ in range(3)]  # a compliance suite sends three at once
    person = line.join("person")
    tickets = [*suite, person]

    def ready() -> list[bool]:
        return [ticket.ready for ticket in tickets]

    assert ready() == [True, False, False, False]
    suite[0].release()
    # The suite had the first turn: the person, who has had none, goes before the suite's second request.
    assert ready() == [True, False, False, True]
    person.release()
    assert ready() == [True, True, False, True]
    suite[1].release()
    assert ready() == [True, True, True, True]
    suite[2].release()
    assert line.holder is None and line.waiting_count() == 0


def test_a_queued_client_that_leaves_leaves_the_line(engine_sandbox: tuple[Sandbox, OneAtATime]) -> None:
    sandbox, engine = engine_sandbox
    with (
        sandbox.api() as first_client,
        sandbox.api() as second_client,
        first_client.stream("POST", "/responses", json=body("first", stream=True)) as first,
    ):
        first_events = Events(first)
        first_events.take(3)
        with second_client.stream("POST", "/responses", json=body("gone", stream=True)) as second:
            assert Events(second).take(2)[1]["type"] == "response.queued"
        wait_for(lambda: engine.line.waiting_count() == 0)
        engine.let_finish("first")
        first_events.take()
        engine.let_finish("third")
        assert first_client.post("/responses", json=body("third")).status_code == 200
    assert engine.begun == ["first", "third"]  # the one that left never ran


def test_a_client_that_leaves_a_plain_request_ends_its_generation(
    engine_sandbox: tuple[Sandbox, OneAtATime],
) -> None:
    sandbox, engine = engine_sandbox
    with sandbox.api() as client, pytest.raises(httpx.ReadTimeout):
        client.post("/responses", json=body("plain"), timeout=httpx.Timeout(30, read=0.5))
    left = time.monotonic()
    # Before, the answer went on to its end (here 3,000 words, 30 s) with nobody to read it, holding the model.
    wait_for(lambda: "plain" in engine.ended, timeout=5)
    assert engine.ended["plain"] - left < 1
    engine.let_finish("next")
    with sandbox.api() as client:
        answer = client.post("/responses", json=body("next"))
    assert answer.status_code == 200 and answer.json()["status"] == "completed"
    assert engine.line.holder is None


def test_an_input_longer_than_the_context_is_a_400_before_any_event(
    engine_sandbox: tuple[Sandbox, OneAtATime],
) -> None:
    sandbox, engine = engine_sandbox
    long_text = "word " * 600  # within the sandbox's estimate of the window (600 of 1,000), not the model's
    with (
        sandbox.api() as client,
        client.stream("POST", "/responses", json=body(long_text, stream=True)) as response,
    ):
        response.read()
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "context_length_exceeded" and error["param"] == "input"
    assert engine.begun == []


def test_truncation_auto_drops_turns_by_the_models_own_count(
    engine_sandbox: tuple[Sandbox, OneAtATime],
) -> None:
    sandbox, engine = engine_sandbox
    engine.let_finish("and now?")
    # Within the window by the sandbox's estimate (about 600 tokens), not by the model's own count (1,200).
    old_turns = [{"role": "user", "content": "a " * 200} for _ in range(3)]
    newest = {"role": "user", "content": "and now?"}
    with sandbox.api() as client:
        answer = client.post("/responses", json=body([*old_turns, newest], truncation="auto"))
        refused = client.post("/responses", json=body([*old_turns, newest]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "completed"
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "context_length_exceeded"


def test_a_client_that_leaves_a_stream_gives_the_turn_to_the_next(
    engine_sandbox: tuple[Sandbox, OneAtATime],
) -> None:
    sandbox, engine = engine_sandbox
    with (
        sandbox.api() as client,
        client.stream("POST", "/responses", json=body("left", stream=True)) as stream,
    ):
        Events(stream).take(5)
    wait_for(lambda: "left" in engine.ended, timeout=5)
    engine.let_finish("next")
    with sandbox.api() as client:
        answer = client.post("/responses", json=body("next"), timeout=10)
    assert answer.status_code == 200 and answer.json()["status"] == "completed"
