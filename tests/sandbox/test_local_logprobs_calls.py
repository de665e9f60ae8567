"""The local engine's log probabilities, parallel calls, and calls beside a JSON format: real generation by
Gemma 3 270M through the official `openai` client, every object and event validated strictly."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import jsonschema
import openai
import pytest

from app.sandbox import SandboxServer
from tests.local_support import local_sandbox
from tests.sandbox.test_official_client import strict, strict_event

pytestmark = pytest.mark.local

CITY: Any = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 20}},
    "required": ["city"],
    "additionalProperties": False,
}
WEATHER: Any = {
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": CITY,
    "strict": True,
}
TIME: Any = {**WEATHER, "name": "get_time", "description": "The time in a city."}
PERSON: Any = {
    "type": "object",
    "properties": {"name": {"type": "string", "maxLength": 20}},
    "required": ["name"],
    "additionalProperties": False,
}
JSON_PERSON: Any = {"format": {"type": "json_schema", "name": "person", "schema": PERSON, "strict": True}}


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    yield from local_sandbox(request, tmp_path_factory)


@pytest.fixture
def client(server: SandboxServer) -> Iterator[openai.OpenAI]:
    assert server.credentials is not None
    with openai.OpenAI(
        base_url=server.base_url, api_key=server.credentials.api_key, max_retries=0, timeout=600
    ) as client:
        yield client


def test_logprobs_are_the_models_own_and_deterministic(client: openai.OpenAI) -> None:
    params: Any = {
        "model": "service-pro",
        "input": "The ocean is",
        "max_output_tokens": 16,
        "temperature": 0,
        "include": ["message.output_text.logprobs"],
        "top_logprobs": 5,
    }
    answer = strict(client.responses.create(**params))
    message: Any = answer.output[0]
    part = message.content[0]
    assert 0 < len(part.logprobs) <= 16 and "".join(lp.token for lp in part.logprobs) == answer.output_text
    for token in part.logprobs:
        assert len(token.top_logprobs) == 5 and token.bytes == list(token.token.encode())
        assert sum(math.exp(top.logprob) for top in token.top_logprobs) <= 1 + 1e-6
        # Greedy at temperature 0: the sampled token is the most likely one, with its own logprob.
        assert token.top_logprobs[0].token == token.token and token.top_logprobs[0].logprob == token.logprob
        assert [top.logprob for top in token.top_logprobs] == sorted(
            (top.logprob for top in token.top_logprobs), reverse=True
        )
    deltas: list[Any] = []
    final: Any = None
    with client.responses.stream(**params) as stream:
        for event in stream:
            strict_event(event)
            if event.type == "response.output_text.delta":
                deltas += event.logprobs
            elif event.type in ("response.completed", "response.incomplete"):
                final = event.response  # 16 tokens: most likely cut by max_output_tokens
    again = strict(final)
    # Temperature 0: the same tokens and alternatives, the same figures. (The second run finds the prompt
    # in llama.cpp's cache and evaluates only its last token again: a one-token batch rounds a little
    # differently from the whole prompt's, hence the tolerance.)
    assert again.output_text == answer.output_text
    assert [lp.token for lp in deltas] == [lp.token for lp in part.logprobs]
    for streamed, kept in zip(deltas, part.logprobs, strict=True):
        assert [t.token for t in streamed.top_logprobs] == [t.token for t in kept.top_logprobs]
        assert streamed.logprob == pytest.approx(kept.logprob, abs=1e-3)


def _calls(response: Any) -> list[tuple[str, dict[str, Any]]]:
    calls = [item for item in response.output if item.type == "function_call"]
    for call in calls:
        jsonschema.validate(json.loads(call.arguments), CITY)
    return [(call.name, json.loads(call.arguments)) for call in calls]


def test_parallel_calls_are_several_function_call_items(client: openai.OpenAI) -> None:
    events: list[Any] = []
    with client.responses.stream(
        model="service-pro",
        input="What is the weather in Paris and the time in Tokyo?",
        tools=[WEATHER, TIME],
        tool_choice="required",
        temperature=0,
        max_output_tokens=90,
    ) as stream:
        events = [strict_event(event) for event in stream]
        response = strict(stream.get_final_response())
    assert response.status == "completed"
    calls = _calls(response)
    assert len(calls) >= 2 and len({json.dumps(call) for call in calls}) == len(calls)  # no repeats
    assert {name for name, _ in calls} == {"get_weather", "get_time"}
    assert sum(event.type == "response.function_call_arguments.done" for event in events) == len(calls)


def test_without_parallel_calls_the_grammar_allows_one(client: openai.OpenAI) -> None:
    response = strict(
        client.responses.create(
            model="service-pro",
            input="What is the weather in Paris and the time in Tokyo?",
            tools=[WEATHER, TIME],
            tool_choice="required",
            parallel_tool_calls=False,
            temperature=0,
            max_output_tokens=60,
        )
    )
    assert response.status == "completed" and len(_calls(response)) == 1


def test_a_json_format_and_tools_answer_with_either(client: openai.OpenAI) -> None:
    """With `text.format` a JSON schema and tool_choice auto, the grammar's alternatives are calls or the
    JSON answer: the model takes one or the other, and either holds to its schema."""
    kinds = set()
    for prompt in ("What is the weather in Paris?", "Give me a person named Ada."):
        response = strict(
            client.responses.create(
                model="service-pro",
                input=prompt,
                tools=[WEATHER, TIME],
                text=JSON_PERSON,
                temperature=0,
                max_output_tokens=90,
            )
        )
        assert response.status == "completed", response.error
        if response.output_text:
            jsonschema.validate(json.loads(response.output_text), PERSON)
            kinds.add("json")
        else:
            assert _calls(response)
            kinds.add("calls")
    assert kinds == {"json", "calls"}
