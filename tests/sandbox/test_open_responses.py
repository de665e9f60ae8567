"""The simulated engine's responses and events validate against the Open Responses specification's own published
models (`openresponses-types`, generated from the specification's OpenAPI document, 2026-04-24), for the
requests its compliance suite sends and the shapes the suite's schema checks reach."""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pytest

spec = pytest.importorskip("openresponses_types")

from tests.conftest import Sandbox  # noqa: E402

WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}
        },
        "required": ["location"],
    },
}
PIXEL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
# The compliance suite's requests (bin/compliance-test.ts in github.com/openresponses/openresponses).
SUITE: dict[str, dict[str, Any]] = {
    "basic-response": {
        "input": [{"type": "message", "role": "user", "content": "Say hello in exactly 3 words."}]
    },
    "system-prompt": {
        "input": [
            {
                "type": "message",
                "role": "system",
                "content": "You are a pirate. Always respond in pirate speak.",
            },
            {"type": "message", "role": "user", "content": "Say hello."},
        ]
    },
    "tool-calling": {
        "input": [
            {"type": "message", "role": "user", "content": "What's the weather like in San Francisco?"}
        ],
        "tools": [WEATHER_TOOL],
    },
    "image-input": {
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What do you see in this image? Answer in one sentence."},
                    {"type": "input_image", "image_url": PIXEL},
                ],
            }
        ]
    },
    "multi-turn": {
        "input": [
            {"type": "message", "role": "user", "content": "My name is Alice."},
            {"type": "message", "role": "assistant", "content": "Hello Alice! Nice to meet you."},
            {"type": "message", "role": "user", "content": "What is my name?"},
        ]
    },
    "penalties": {"input": "Count from 1 to 5.", "presence_penalty": 0.5, "frequency_penalty": -0.25},
    "json-schema": {
        "input": "A city and a number of days",
        "text": {
            "format": {
                "type": "json_schema",
                "name": "trip",
                "description": "A trip to plan",
                "schema": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
                "strict": True,
            }
        },
    },
    "incomplete": {"input": "Tell me a long story about tides and the moon", "max_output_tokens": 16},
    "logprobs": {"input": "Hi", "include": ["message.output_text.logprobs"], "top_logprobs": 2},
    "reasoning": {
        "model": "service-think",
        "input": "Why is the sky blue?",
        "reasoning": {"summary": "auto"},
    },
}


def _event_classes() -> dict[str, type[pydantic.BaseModel]]:
    classes: dict[str, type[pydantic.BaseModel]] = {}
    for name in dir(spec.types):
        cls = getattr(spec.types, name)
        if name.endswith("StreamingEvent") and isinstance(cls, type) and issubclass(cls, pydantic.BaseModel):
            kind = cls.model_fields["type"].annotation
            values = [member.value for member in kind] if isinstance(kind, type) else []
            if len(values) == 1:
                classes[values[0]] = cls
    return classes


EVENT_CLASSES = _event_classes()


def _as_published(response: dict[str, Any]) -> dict[str, Any]:
    """The response with an echoed JSON schema set aside: the specification types it `object | null`, and the
    package's generator rendered it as `None` alone, so the object is checked here and the rest by the model."""
    text_format = response.get("text", {}).get("format", {})
    if text_format.get("type") != "json_schema":
        return response
    assert isinstance(text_format["schema"], dict)
    return {**response, "text": {**response["text"], "format": {**text_format, "schema": None}}}


def valid_response(data: dict[str, Any]) -> Any:
    return spec.ResponseResource.model_validate(_as_published(data))


def valid_event(event: dict[str, Any]) -> Any:
    if isinstance(event.get("response"), dict):
        event = {**event, "response": _as_published(event["response"])}
    return EVENT_CLASSES[event["type"]].model_validate(event)


def post(sandbox: Sandbox, body: dict[str, Any]) -> dict[str, Any]:
    with sandbox.api() as client:
        answer = client.post("/responses", json={"model": "service-pro", **body})
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def stream(sandbox: Sandbox, body: dict[str, Any]) -> list[dict[str, Any]]:
    with (
        sandbox.api() as client,
        client.stream("POST", "/responses", json={"model": "service-pro", **body, "stream": True}) as answer,
    ):
        assert answer.status_code == 200
        lines = [line for line in answer.iter_lines() if line.startswith("data: ")]
    return [json.loads(line.removeprefix("data: ")) for line in lines if line != "data: [DONE]"]


@pytest.mark.parametrize("case", sorted(SUITE))
def test_a_response_validates_against_the_specification(sandbox: Sandbox, case: str) -> None:
    response = valid_response(post(sandbox, SUITE[case]))
    assert response.output


@pytest.mark.parametrize("case", sorted(SUITE))
def test_every_event_validates_against_the_specification(sandbox: Sandbox, case: str) -> None:
    events = stream(sandbox, SUITE[case])
    unknown = {event["type"] for event in events} - set(EVENT_CLASSES)
    assert not unknown
    for event in events:
        valid_event(event)


def test_the_penalties_are_echoed(sandbox: Sandbox) -> None:
    response = post(sandbox, SUITE["penalties"])
    assert (response["presence_penalty"], response["frequency_penalty"]) == (0.5, -0.25)
    assert (post(sandbox, SUITE["basic-response"])["presence_penalty"]) == 0.0


def test_completed_at_is_null_until_the_response_completes(sandbox: Sandbox) -> None:
    events = {event["type"]: event for event in stream(sandbox, SUITE["incomplete"])}
    for kind in ("response.created", "response.in_progress", "response.incomplete"):
        assert "completed_at" in events[kind]["response"] and events[kind]["response"]["completed_at"] is None
    completed = {event["type"]: event for event in stream(sandbox, SUITE["basic-response"])}[
        "response.completed"
    ]
    assert isinstance(completed["response"]["completed_at"], int)


def test_the_format_description_is_echoed(sandbox: Sandbox) -> None:
    assert post(sandbox, SUITE["json-schema"])["text"]["format"]["description"] == "A trip to plan"
    untold = {**SUITE["json-schema"]["text"]["format"]}
    del untold["description"]
    assert (
        post(sandbox, {**SUITE["json-schema"], "text": {"format": untold}})["text"]["format"]["description"]
        is None
    )


def test_arguments_done_names_its_function(sandbox: Sandbox) -> None:
    events = stream(sandbox, SUITE["tool-calling"])
    done = [event for event in events if event["type"] == "response.function_call_arguments.done"]
    assert done and done[0]["name"] == "get_weather"
    assert json.loads(done[0]["arguments"])["location"]


def test_a_prompt_about_a_tool_calls_it(sandbox: Sandbox) -> None:
    """The weather in a city is what get_weather's description is about, though the prompt never names it."""
    output = post(sandbox, SUITE["tool-calling"])["output"]
    assert [item["type"] for item in output] == ["function_call"]
    assert output[0]["name"] == "get_weather"


def test_a_prompt_about_a_description_calls_it(sandbox: Sandbox) -> None:
    """Two words of the description ("amount", "currencies") are enough; a greeting is answered in text."""
    tool = {
        "type": "function",
        "name": "convert",
        "description": "Convert an amount of money between two currencies",
        "parameters": {
            "type": "object",
            "properties": {"amount": {"type": "number"}},
            "required": ["amount"],
        },
    }
    asked = post(sandbox, {"input": "What is this amount in other currencies?", "tools": [tool]})
    assert [item["type"] for item in asked["output"]] == ["function_call"]
    greeted = post(sandbox, {"input": "Hello there", "tools": [tool, WEATHER_TOOL]})
    assert [item["type"] for item in greeted["output"]] == ["message"]


def compact(sandbox: Sandbox, body: dict[str, Any]) -> Any:
    with sandbox.api() as client:
        answer = client.post("/responses/compact", json={"model": "service-pro", **body})
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_compaction_keeps_the_user_turns_and_seals_the_rest(sandbox: Sandbox) -> None:
    first = post(sandbox, SUITE["tool-calling"])
    call = first["output"][0]
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Foggy, 14 °C"}
    second = post(sandbox, {"previous_response_id": first["id"], "input": [output], "tools": [WEATHER_TOOL]})
    compacted = compact(sandbox, {"previous_response_id": second["id"], "input": "And tomorrow?"})
    spec.CompactResource.model_validate(compacted)
    kinds = [(item["type"], item.get("role")) for item in compacted["output"]]
    assert kinds == [("message", "user"), ("message", "user"), ("compaction", None)]
    assert compacted["output"][1]["content"][0]["text"] == "And tomorrow?"
    assert compacted["usage"]["input_tokens"] > compacted["usage"]["output_tokens"] > 0
    # Read back in place of the turns it replaced: the summary reaches the engine as a developer turn.
    follow = post(sandbox, {"input": [*compacted["output"], {"role": "user", "content": "Summarize"}]})
    assert valid_response(follow).status == "completed"
    with sandbox.api() as client:
        counted = client.post("/responses/input_tokens", json={"input": compacted["output"]}).json()
    assert counted["input_tokens"] >= compacted["usage"]["output_tokens"]


def test_a_changed_compaction_is_refused(sandbox: Sandbox) -> None:
    item = compact(sandbox, {"input": "Hello"})["output"][-1]
    changed = {**item, "encrypted_content": item["encrypted_content"][:-4] + "AAAA"}
    with sandbox.api() as client:
        answer = client.post("/responses", json={"model": "service-pro", "input": [changed]})
        empty = client.post("/responses/compact", json={"model": "service-pro"})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "input[0].encrypted_content"
    assert empty.status_code == 400 and empty.json()["error"]["param"] == "input"


def test_context_management_compacts_past_its_threshold(sandbox: Sandbox) -> None:
    first = post(sandbox, {"input": "Tell me about tides and the moon in 60 words"})
    second = post(sandbox, {"previous_response_id": first["id"], "input": "And the sun, in 60 words?"})
    chained = {"previous_response_id": second["id"], "input": "Which is stronger?"}
    whole = post(sandbox, chained)
    events = stream(
        sandbox, {**chained, "context_management": [{"type": "compaction", "compact_threshold": 50}]}
    )
    for event in events:
        valid_event(event)
    final = events[-1]["response"]
    assert [item["type"] for item in final["output"]] == ["compaction", "message"]
    assert final["usage"]["input_tokens"] < whole["usage"]["input_tokens"]
    untouched = post(
        sandbox, {**chained, "context_management": [{"type": "compaction", "compact_threshold": 100_000}]}
    )
    assert [item["type"] for item in untouched["output"]] == ["message"]
    # The next turn reads the compacted history the response stored.
    assert post(sandbox, {"previous_response_id": final["id"], "input": "Thanks"})["status"] == "completed"


def test_a_conversation_keeps_no_compaction_item(sandbox: Sandbox) -> None:
    item = compact(sandbox, {"input": "Hello"})["output"][-1]
    with sandbox.api() as client:
        answer = client.post("/conversations", json={"items": [item]})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "items[0].type"
