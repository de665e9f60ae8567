"""The upstream engine meets chat servers as they are: what it sends a server like llama-cpp-python's (a
recording one on loopback, recording_upstream.py) and what it reports of the answers.

The same cases against the real server run under the `peers` marker (tests/peers/test_upstream_engine.py).
"""

from __future__ import annotations

import json
from typing import Any

import openai

from tests.conftest import Sandbox, SandboxFactory
from tests.sandbox.recording_upstream import USAGE, RecordingUpstream, recording_upstream
from tests.sandbox.test_function_calling import WEATHER, calls_of
from tests.sandbox.test_official_client import strict, strict_event


def _front(sandbox_factory: SandboxFactory, upstream: RecordingUpstream) -> Sandbox:
    sandbox: Sandbox = sandbox_factory(engine="upstream", upstream_url=upstream.url, upstream_api="chat")
    return sandbox


def _api(sandbox: Sandbox) -> Any:  # typed loosely: the tests send dicts the client types as TypedDicts
    return openai.OpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0)


def _usage(response: Any) -> tuple[int, int]:
    return response.usage.input_tokens, response.usage.output_tokens


def test_the_second_round_of_a_tool_loop_sends_the_calls_with_empty_content(
    sandbox_factory: SandboxFactory,
) -> None:
    with recording_upstream() as upstream, _api(_front(sandbox_factory, upstream)) as api:
        first = strict(api.responses.create(model="service-pro", input="the weather?", tools=[WEATHER]))
        (call,) = calls_of(first)
        output = {"type": "function_call_output", "call_id": call.call_id, "output": "Sunny"}
        second = strict(
            api.responses.create(
                model="service-pro", input=[output], previous_response_id=first.id, tools=[WEATHER]
            )
        )
        assistant = upstream.bodies[1]["messages"][-2]
    assert second.status == "completed" and second.output_text == "It is sunny in Oslo."
    assert assistant["content"] == "" and assistant["tool_calls"][0]["id"] == call.call_id


def test_a_client_that_waits_gets_a_whole_upstream_answer_with_the_upstreams_usage(
    sandbox_factory: SandboxFactory,
) -> None:
    with recording_upstream() as upstream, _api(_front(sandbox_factory, upstream)) as api:
        response = strict(
            api.responses.create(model="service-pro", input="Tell a story", max_output_tokens=16)
        )
        (sent,) = upstream.bodies
    assert sent["stream"] is False and "stream_options" not in sent  # refused without a stream elsewhere
    assert response.status == "incomplete" and response.output_text == "A long answer that the upstream cut"
    assert _usage(response) == (USAGE["prompt_tokens"], USAGE["completion_tokens"])


def test_a_stream_asks_for_the_upstreams_usage_and_reports_it(sandbox_factory: SandboxFactory) -> None:
    with recording_upstream(usage_in_stream=True) as upstream, _api(_front(sandbox_factory, upstream)) as api:
        stream = api.responses.create(model="service-pro", input="Hello", stream=True)
        events = [strict_event(event) for event in stream]
        (sent,) = upstream.bodies
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    final = strict(events[-1].response)
    assert final.output_text == "Hello there." and _usage(final) == (17, 16)


def test_a_server_that_refuses_stream_options_is_asked_without_them_from_then_on(
    sandbox_factory: SandboxFactory,
) -> None:
    with (
        recording_upstream(refuses_stream_options=True) as upstream,
        _api(_front(sandbox_factory, upstream)) as api,
    ):
        answers = []
        for _ in range(2):
            stream = api.responses.create(model="service-pro", input="Hello", stream=True)
            answers.append([strict_event(event) for event in stream][-1])
        asked = ["stream_options" in body for body in upstream.bodies]
    assert [answer.type for answer in answers] == ["response.completed", "response.completed"]
    assert all(answer.response.output_text == "Hello there." for answer in answers)
    assert asked == [True, False, False]  # refused once, then learnt


def test_a_required_tool_choice_the_upstream_ignored_fails_the_response(
    sandbox_factory: SandboxFactory,
) -> None:
    forced = {"type": "function", "name": "get_weather"}
    with recording_upstream() as upstream, _api(_front(sandbox_factory, upstream)) as api:
        plain = strict(
            api.responses.create(
                model="service-pro", input="Say hello", tools=[WEATHER], tool_choice="required"
            )
        )
        stream = api.responses.create(
            model="service-pro", input="Say hello", tools=[WEATHER], tool_choice=forced, stream=True
        )
        events = [strict_event(event) for event in stream]
        cut = strict(
            api.responses.create(
                model="service-pro", input="A story", tools=[WEATHER], tool_choice="required"
            )
        )
    assert cut.status == "incomplete"  # cut at max_tokens before any call: not a choice ignored
    assert upstream.bodies[0]["tool_choice"] == "required"  # sent, and answered in text all the same
    named = strict(events[-1].response)
    assert events[-1].type == "response.failed" and named.status == "failed"
    assert named.error is not None and "did not call 'get_weather'" in named.error.message
    assert plain.status == "failed" and plain.error is not None
    assert "tool_choice was 'required'" in plain.error.message and plain.error.code == "server_error"


def test_a_responses_upstream_is_asked_whole_or_streamed_as_the_client_reads(
    sandbox_factory: SandboxFactory,
) -> None:
    with recording_upstream(speaks_responses=True) as upstream:
        front = sandbox_factory(engine="upstream", upstream_url=upstream.url, upstream_api="responses")
        with _api(front) as api:
            plain = strict(api.responses.create(model="service-pro", input="the weather?", tools=[WEATHER]))
            stream = api.responses.create(model="service-pro", input="Hello", stream=True)
            final = strict([strict_event(event) for event in stream][-1].response)
        asked = [body["stream"] for body in upstream.bodies]
    assert asked == [False, True]  # LiteLLM's streamed tool calls are never involved for a client that waits
    (call,) = calls_of(plain)
    assert (call.name, json.loads(call.arguments)) == ("get_weather", {"city": "Oslo", "days": 2})
    assert final.output_text == "Hello there."
    assert _usage(plain) == _usage(final) == (17, 16)
