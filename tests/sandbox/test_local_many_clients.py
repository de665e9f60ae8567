"""The local engine (Gemma 3 270M) serving many clients: its context, its turns, a client that leaves, and
the cap on an answer. tests/sandbox/test_engine_turns.py checks the same rules fast with a stand-in model."""

from __future__ import annotations

import ipaddress
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from app.sandbox import SandboxServer
from app.sandbox.engines.local import LocalEngine
from tests.conftest import start_sandbox
from tests.local_support import local_sandbox, require_local
from tests.sandbox.test_local_engine import WEATHER_TOOL

pytestmark = pytest.mark.local


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    yield from local_sandbox(request, tmp_path_factory)


@pytest.fixture
def client(server: SandboxServer) -> Iterator[openai.OpenAI]:
    assert server.credentials is not None
    with openai.OpenAI(base_url=server.base_url, api_key=server.credentials.api_key, max_retries=0) as client:
        yield client


def local_engine(server: SandboxServer) -> LocalEngine:
    engine = server.state.engine
    assert isinstance(engine, LocalEngine)
    return engine


def test_the_context_is_as_long_as_the_model_was_trained_for(
    client: openai.OpenAI, server: SandboxServer
) -> None:
    client.responses.create(model="service-pro", input="Hi", max_output_tokens=16)  # the weights are loaded
    model = local_engine(server).default
    # Gemma 3 270M: 32,768 tokens (it was a fixed 4,096, and the Codex CLI's first request is 8,678).
    assert model.context == int(model.llama.metadata["gemma3.context_length"]) == 32_768


def test_context_window_sets_the_context_and_a_longer_input_is_a_400_before_any_event(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    require_local(request)
    server = start_sandbox(
        tmp_path, engine="local", model_context=1024, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")]
    )
    try:
        assert server.credentials is not None
        body = {"model": "service-pro", "input": "The sea. " * 400, "stream": True, "max_output_tokens": 16}
        headers = {"authorization": f"Bearer {server.credentials.api_key}"}
        with (
            httpx.Client(base_url=server.base_url, headers=headers, timeout=120) as http,
            http.stream("POST", "/responses", json=body) as response,
        ):
            response.read()
        assert local_engine(server).default.context == 1024
    finally:
        server.stop()
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "context_length_exceeded" and error["param"] == "input"


@pytest.mark.parametrize("cap", [16, 24, 40])
def test_an_answer_cut_at_the_cap_never_exceeds_it_nor_makes_a_broken_call(
    client: openai.OpenAI, cap: int
) -> None:
    response = client.responses.create(
        model="service-pro",
        input="What is the weather in Paris for the next three days, and in Rome?",
        tools=[WEATHER_TOOL],
        tool_choice="required",
        max_output_tokens=cap,
        temperature=0.0,
    )
    assert response.usage is not None and response.usage.output_tokens <= cap  # it was cap + 16
    calls: list[Any] = [item for item in response.output if item.type == "function_call"]
    for call in calls:
        if call.status == "completed":
            json.loads(call.arguments)
    if response.status == "incomplete":
        assert response.incomplete_details is not None
        assert response.incomplete_details.reason == "max_output_tokens"
    else:
        assert response.status == "completed" and calls
        assert all(call.status == "completed" for call in calls)


def test_a_request_behind_another_is_queued_then_answered(client: openai.OpenAI) -> None:
    with client.responses.stream(model="service-pro", input="A long story:", max_output_tokens=64) as first:
        for event in first:
            if event.type == "response.output_text.delta":
                break  # the first answer is generating: the model is taken
        with client.responses.stream(model="service-pro", input="Cats are", max_output_tokens=16) as second:
            types = [event.type for event in second]
    assert types[:3] == ["response.created", "response.queued", "response.in_progress"]
    assert types[-1] in ("response.completed", "response.incomplete")


def test_a_client_that_leaves_a_plain_request_frees_the_model_at_once(
    server: SandboxServer, client: openai.OpenAI
) -> None:
    client.responses.create(model="service-pro", input="Hi", max_output_tokens=16)  # loaded, warm
    model = local_engine(server).default
    assert server.credentials is not None
    headers = {"authorization": f"Bearer {server.credentials.api_key}"}
    body = {"model": "service-pro", "input": "A very long story:", "max_output_tokens": 2000}
    with (
        httpx.Client(base_url=server.base_url, headers=headers) as http,
        pytest.raises(httpx.ReadTimeout),
    ):
        http.post("/responses", json=body, timeout=httpx.Timeout(30, read=1.5))
    left = time.perf_counter()
    # Before, the 2,000 tokens were generated for nobody (a minute), and every later request waited.
    while model.lock.locked():
        assert time.perf_counter() - left < 2, "generation went on after the client left"
        time.sleep(0.01)
