"""Real generation by the local engine (Gemma 3 270M), through the official `openai` client over HTTP."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import openai
import pytest

from app.sandbox import SandboxServer
from app.sandbox.engines.local import LocalEngine
from tests.local_support import local_sandbox

pytestmark = pytest.mark.local

# Bounded (the grammar holds the name to 40 characters, and the model's integers and white space are
# bounded too), so the JSON fits the answer's room whatever the model writes: an unbounded name can run
# into the cap, mid-JSON.
PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 40}, "age": {"type": "integer"}},
    "required": ["name", "age"],
    "additionalProperties": False,
}


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


def test_models_name_the_weights(client: openai.OpenAI) -> None:
    owner = client.models.list().data[0].owned_by
    assert "gemma-3-270m-q4_k_m.gguf" in owner


def test_stream_delivers_real_tokens_and_usage(client: openai.OpenAI) -> None:
    deltas: list[str] = []
    final = None
    with client.responses.stream(model="service-pro", input="The ocean is", max_output_tokens=24) as stream:
        for event in stream:
            if event.type == "response.output_text.delta":
                deltas.append(event.delta)
            elif event.type in ("response.completed", "response.incomplete"):
                final = event.response
    assert final is not None
    assert len(deltas) > 3 and "".join(deltas) == final.output_text and final.output_text.strip()
    assert final.usage is not None
    assert final.usage.input_tokens == 4  # <bos> The ocean is: the model's tokenizer, not an estimate
    assert 0 < final.usage.output_tokens <= 24


def test_max_output_tokens_makes_it_incomplete(client: openai.OpenAI) -> None:
    response = client.responses.create(model="service-pro", input="Once upon a time", max_output_tokens=16)
    assert response.status == "incomplete"
    assert (
        response.incomplete_details is not None and response.incomplete_details.reason == "max_output_tokens"
    )
    assert response.usage is not None and response.usage.output_tokens == 16


@pytest.mark.parametrize("asked", [None, 1000])
def test_an_answer_is_held_to_the_engines_output_limit(
    client: openai.OpenAI, server: SandboxServer, monkeypatch: pytest.MonkeyPatch, asked: int | None
) -> None:
    # No limit asked, or more than the engine's: a model caught in a loop would otherwise write to its
    # context's end (minutes) while every other client waits.
    engine = server.state.engine
    assert isinstance(engine, LocalEngine) and engine.max_output == 2048  # the documented default
    monkeypatch.setattr(engine, "max_output", 12)
    response = client.responses.create(
        model="service-pro", input="Once upon a time", max_output_tokens=asked, temperature=0.0
    )
    assert response.status == "incomplete", response.output_text
    assert response.incomplete_details is not None
    assert response.incomplete_details.reason == "max_output_tokens"
    assert response.usage is not None and response.usage.output_tokens == 12


def test_chain_rebuilds_the_conversation(client: openai.OpenAI) -> None:
    first = client.responses.create(
        model="service-pro", input="My name is Ada.", instructions="Answer briefly.", max_output_tokens=16
    )
    second = client.responses.create(
        model="service-pro", input="What is my name?", previous_response_id=first.id, max_output_tokens=16
    )
    assert second.status in ("completed", "incomplete")
    assert first.usage is not None and second.usage is not None
    # The second prompt carries the first turn (question and answer) as well as its own.
    assert second.usage.input_tokens > first.usage.input_tokens + first.usage.output_tokens


def test_schema_constrains_the_json(client: openai.OpenAI) -> None:
    response = client.responses.create(
        model="service-pro",
        input="A person, as JSON:",
        text={"format": {"type": "json_schema", "name": "person", "schema": PERSON, "strict": True}},
        max_output_tokens=80,
        temperature=0.2,
    )
    assert response.status == "completed", response.error
    jsonschema.validate(json.loads(response.output_text), PERSON)


def test_stop_mid_answer_frees_the_model_at_once(client: openai.OpenAI, server: SandboxServer) -> None:
    engine = server.state.engine
    assert isinstance(engine, LocalEngine)
    model = engine.default
    received, stopped = 0, 0.0
    with client.responses.stream(model="service-pro", input="A long story:", max_output_tokens=400) as stream:
        for event in stream:
            received += event.type == "response.output_text.delta"
            if received == 3:
                stopped = time.perf_counter()
                break
    # Closing the stream is Stop: the worker leaves the model at its next token.
    while model.lock.locked():
        assert time.perf_counter() - stopped < 2, "generation went on after Stop"
        time.sleep(0.005)


def test_two_concurrent_requests_both_answer(client: openai.OpenAI) -> None:
    answers: dict[str, str] = {}

    def ask(prompt: str) -> None:
        answers[prompt] = client.responses.create(
            model="service-pro", input=prompt, max_output_tokens=16
        ).output_text

    threads = [threading.Thread(target=ask, args=(prompt,)) for prompt in ("Cats are", "The sun is")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert set(answers) == {"Cats are", "The sun is"} and all(text.strip() for text in answers.values())


WEATHER_TOOL: Any = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": 40}, "days": {"type": "integer"}},
        "required": ["city", "days"],
        "additionalProperties": False,
    },
    "strict": True,
}


def test_a_required_call_holds_to_the_schema_and_its_output_gets_an_answer(client: openai.OpenAI) -> None:
    first = client.responses.create(
        model="service-pro",
        input="What is the weather in Paris?",
        tools=[WEATHER_TOOL],
        tool_choice="required",
        max_output_tokens=200,  # room for more than one call: one cut at the cap would not be whole
    )
    assert first.status == "completed", first.incomplete_details
    # Parallel calls are the API's default: the model may call more than once, and each call is answered.
    calls = [item for item in first.output if item.type == "function_call"]
    assert calls
    for call in calls:
        assert call.name == "get_weather"
        jsonschema.validate(json.loads(call.arguments), WEATHER_TOOL["parameters"])
    outputs: Any = [
        {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny, 21 C"} for call in calls
    ]
    answer = client.responses.create(
        model="service-pro",
        input=outputs,
        previous_response_id=first.id,
        tools=[WEATHER_TOOL],
        max_output_tokens=24,
    )
    assert answer.status in ("completed", "incomplete") and answer.output


def test_a_call_streams_as_function_call_events(client: openai.OpenAI) -> None:
    with client.responses.stream(
        model="service-pro",
        input="Weather in Oslo?",
        tools=[WEATHER_TOOL],
        tool_choice={"type": "function", "name": "get_weather"},
        max_output_tokens=60,
    ) as stream:
        types = [event.type for event in stream]
        final = stream.get_final_response()
    assert "response.function_call_arguments.done" in types
    assert final.output[0].type == "function_call"


def test_input_tokens_are_the_models_own_count(client: openai.OpenAI) -> None:
    params: dict[str, Any] = {
        "model": "service-pro",
        "input": "The ocean is",
        "instructions": "Answer in one word.",
    }
    counted = client.responses.input_tokens.count(**params)
    answered = client.responses.create(max_output_tokens=16, **params)
    assert answered.usage is not None and counted.input_tokens == answered.usage.input_tokens
