"""A client that leaves a stream early (the console's Stop): the sandbox stops writing at once, quietly."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable

import pytest

from app.sandbox.engines.base import Conversation, Engine, Step
from tests.conftest import Sandbox


class EngineWatch:
    """Wraps the server's engine: counts the steps it produced and notes when its generator was closed."""

    def __init__(self, engine: Engine) -> None:
        self.run = engine.run
        self.steps: list[float] = []
        self.closed_at: float | None = None

    async def watched(self, conversation: Conversation) -> AsyncIterator[Step]:
        try:
            async for step in self.run(conversation):
                self.steps.append(time.monotonic())
                yield step
        finally:
            self.closed_at = time.monotonic()


def wait_for(condition: Callable[[], object], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_closing_a_long_stream_stops_the_server_at_once(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    engine = sandbox.server.state.engine
    watch = EngineWatch(engine)
    monkeypatch.setattr(engine, "run", watch.watched)
    caplog.set_level(logging.WARNING)
    body = {"model": "service-pro", "input": "Write 50000 words about the sea", "stream": True}
    with sandbox.api() as client:
        with client.stream("POST", "/responses", json=body) as response:
            events = 0
            for line in response.iter_lines():
                events += line.startswith("event: ")
                if events == 20:
                    break
        left = time.monotonic()
        # Before the fix the server wrote all 50,000 words into the closed socket (1.3 s alone, ~4 s beside
        # the console) and logged asyncio's "socket.send() raised exception." once per write.
        assert wait_for(lambda: watch.closed_at is not None, timeout=10)
        assert watch.closed_at is not None and watch.closed_at - left < 0.5
        assert sum(1 for step in watch.steps if step > left) < 100
        assert not [record for record in caplog.records if "socket.send()" in record.getMessage()]
        answer = client.post("/responses", json={"model": "service-pro", "input": "Still there?"})
    assert answer.status_code == 200 and answer.json()["status"] == "completed"
