"""The upstream engine's function calling and honesty: calls of a Responses upstream (a second sandbox) come
out as the sandbox's own events; Chat Completions `tool_calls`, `finish_reason: "length"`, usage and a
mid-stream failure are read truthfully.

The Chat Completions side here is a recording server on loopback (recording_upstream.py), because llama.cpp's
server cannot run on every machine (tests/peers meets the real one under the `peers` marker); it answers
from scripts that hold exactly what llama.cpp and LiteLLM send.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.conftest import Sandbox
from tests.sandbox.recording_upstream import RecordingUpstream, recording_upstream
from tests.sandbox.test_function_calling import WEATHER, calls_of
from tests.sandbox.test_official_client import strict, strict_event

SandboxFactory = Any


@pytest.fixture
def chat_server() -> Iterator[RecordingUpstream]:
    """A chat server that honours `include_usage`, as llama.cpp's own server and LiteLLM do."""
    with recording_upstream(usage_in_stream=True) as upstream:
        yield upstream


@pytest.fixture
def chat_upstream() -> Iterator[str]:
    """The base URL of such a server (tests/sandbox/test_responses_socket.py uses it too)."""
    with recording_upstream(usage_in_stream=True) as upstream:
        yield upstream.url


def _api(sandbox: Sandbox) -> Any:
    return openai.OpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0)


def test_a_responses_upstreams_calls_are_the_sandboxs_own_events(sandbox_factory: SandboxFactory) -> None:
    upstream: Sandbox = sandbox_factory()
    front: Sandbox = sandbox_factory(
        engine="upstream", upstream_url=upstream.url, upstream_key=upstream.creds.api_key
    )
    namespace = {
        "type": "namespace",
        "name": "crm",
        "description": "Records.",
        "tools": [{**WEATHER, "name": "find"}],
    }
    with _api(front) as api:
        stream = api.responses.create(model="service-pro", input="crm find", tools=[namespace], stream=True)
        events = [strict_event(event) for event in stream]
        final = strict(events[-1].response)
        (call,) = calls_of(final)
        assert (call.name, call.namespace) == ("find", "crm") and json.loads(call.arguments)["days"] >= 1
        assert "response.function_call_arguments.delta" in {event.type for event in events}
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "Ada Lovelace"}
        answer = strict(
            api.responses.create(
                model="service-pro", input=[output], previous_response_id=final.id, tools=[namespace]
            )
        )
    assert "find returned: “Ada Lovelace”" in answer.output_text


def test_chat_tool_calls_are_translated_both_ways(
    sandbox_factory: SandboxFactory, chat_server: RecordingUpstream
) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=chat_server.url, upstream_api="chat")
    with _api(front) as api:
        first = strict(
            api.responses.create(
                model="service-pro",
                input="the weather?",
                tools=[WEATHER],
                tool_choice="required",
                parallel_tool_calls=False,
            )
        )
        (call,) = calls_of(first)
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny"}
        api.responses.create(
            model="service-pro", input=[output], previous_response_id=first.id, tools=[WEATHER]
        )
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Oslo", "days": 2})
    sent = chat_server.bodies[0]
    assert sent["tools"][0]["function"]["name"] == "get_weather" and sent["tool_choice"] == "required"
    assert sent["parallel_tool_calls"] is False
    history = chat_server.bodies[1]["messages"]
    assert history[-2]["tool_calls"][0] == {
        "id": call.call_id,
        "type": "function",
        "function": {"name": "get_weather", "arguments": call.arguments},
    }
    assert history[-1] == {"role": "tool", "tool_call_id": call.call_id, "content": "Sunny"}


def test_an_answer_cut_at_max_tokens_is_incomplete_with_the_upstreams_usage(
    sandbox_factory: SandboxFactory, chat_server: RecordingUpstream
) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=chat_server.url, upstream_api="chat")
    with _api(front) as api:
        plain = strict(api.responses.create(model="service-pro", input="Tell a story", max_output_tokens=16))
        stream = api.responses.create(
            model="service-pro", input="Tell a story", max_output_tokens=16, stream=True
        )
        events = [strict_event(event) for event in stream]
    for response in (plain, strict(events[-1].response)):
        assert response.status == "incomplete" and response.incomplete_details is not None
        assert response.incomplete_details.reason == "max_output_tokens"
        assert response.usage is not None
        assert (response.usage.input_tokens, response.usage.output_tokens) == (17, 16)  # the upstream's own
    assert events[-1].type == "response.incomplete" and chat_server.bodies[0]["max_tokens"] == 16


def test_a_responses_upstreams_incomplete_answer_stays_incomplete(sandbox_factory: SandboxFactory) -> None:
    upstream: Sandbox = sandbox_factory()
    front: Sandbox = sandbox_factory(
        engine="upstream", upstream_url=upstream.url, upstream_key=upstream.creds.api_key
    )
    with _api(front) as api:
        response = strict(
            api.responses.create(model="service-pro", input="Write 300 words", max_output_tokens=20)
        )
    assert response.status == "incomplete" and response.incomplete_details is not None
    assert response.usage is not None and response.usage.output_tokens <= 20


def test_a_streamed_upstream_failure_keeps_its_whole_reason_on_one_line(
    sandbox_factory: SandboxFactory, chat_server: RecordingUpstream
) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=chat_server.url, upstream_api="chat")
    with _api(front) as api:
        stream = api.responses.create(model="service-pro", input="please fail", stream=True)
        events = [strict_event(event) for event in stream]
    error = events[-1]
    assert error.type == "error" and error.code == "upstream_error"
    assert "litellm.BadRequestError: the model crashed" in error.message and chat_server.url in error.message
    assert "Traceback" not in error.message and "\n" not in error.message
