"""The local engine's function-calling pieces that need no weights: the call schema its grammar is built
from, the prompt that tells a model without a tools template about the functions, and reading a call."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from app.sandbox.engines.base import Conversation, FunctionCallDelta, TokenLogprob
from app.sandbox.engines.local_calls import CallStream
from app.sandbox.engines.local_generate import HeldText
from app.sandbox.engines.local_grammar import answer_shape
from app.sandbox.engines.local_tools import call_schema, parse_call, still_deciding
from app.sandbox.engines.prompt import TRANSCRIPT_STOP, build_prompt
from app.sandbox.request.engine_request import parse_request

WEATHER: dict[str, Any] = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
GROUP = {"type": "namespace", "name": "crm", "description": "", "tools": [{**WEATHER, "name": "find"}]}


def _request(**body: Any) -> Any:
    return parse_request({"model": "service-pro", "input": "Weather?", **body}, ["service-pro"], 1000)


def test_the_call_schema_is_a_valid_schema_that_fixes_the_name() -> None:
    schema = call_schema(_request(tools=[WEATHER, GROUP]).tools)
    jsonschema.validators.validator_for(schema).check_schema(schema)
    jsonschema.validate({"name": "crm__find", "arguments": {"city": "Oslo"}}, schema)
    forced = call_schema(
        _request(tools=[WEATHER, GROUP], tool_choice={"type": "function", "name": "find"}).tools
    )
    assert forced["properties"]["name"] == {"const": "crm__find"}


def test_a_prompt_without_a_template_describes_the_functions_and_earlier_calls() -> None:
    request = _request(
        tools=[WEATHER],
        input=[
            {"role": "user", "content": "Weather?"},
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "get_weather",
                "arguments": '{"city": "Oslo"}',
            },
            {"type": "function_call_output", "call_id": "c1", "output": "Rain"},
        ],
    )
    prompt, stop = build_prompt(Conversation(request, []), [], None)
    assert "get_weather" in prompt and "<tool_call>" in prompt and prompt.endswith("Assistant:")
    assert '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>' in prompt
    assert "Tool: Rain" in prompt and stop == TRANSCRIPT_STOP and "\nUser:" in stop


def test_reading_a_call_and_holding_back_its_mark() -> None:
    plan = _request(tools=[GROUP]).tools
    assert parse_call('{"name": "crm__find", "arguments": {"city": "Oslo"}}', plan) == (
        "find",
        json.dumps({"city": "Oslo"}),
        "crm",
    )
    assert parse_call("not json", plan) is None
    assert still_deciding(" <tool") and not still_deciding("Hello") and not still_deciding("<tool_call>{")


def test_calls_stream_piece_by_piece_and_a_repeat_ends_the_answer() -> None:
    stream = CallStream(_request(tools=[WEATHER, GROUP]).tools)
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n'
        '<tool_call>{"name": "crm__find", "arguments": {"city": "Bergen \\"}"}}</tool_call>\n'
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
    )
    deltas: list[FunctionCallDelta] = []
    for start in range(0, len(text), 3):  # as tokens arrive: a few characters at a time
        deltas += stream.feed(text[start : start + 3])
    calls: dict[int, tuple[str, str | None, str]] = {}
    for delta in deltas:
        name, namespace, arguments = calls.get(delta.index, (delta.name, delta.namespace, ""))
        calls[delta.index] = (name, namespace, arguments + delta.arguments)
    assert calls == {
        0: ("get_weather", None, '{"city": "Oslo"}'),
        1: ("find", "crm", '{"city": "Bergen \\"}"}'),
    }
    assert stream.repeated and not stream.open and stream.count == 2


def test_text_that_may_begin_a_stop_string_is_held_with_its_tokens() -> None:
    held = HeldText(("\nUser:",))
    one, two, three = (TokenLogprob(text, -0.5) for text in ("Hi", "\nUs", "er:"))
    assert held.add("Hi", (one,)) == ("Hi", False) and held.take() == (one,)
    assert held.add("\nUs", (two,)) == ("", False) and held.take() == ()
    assert held.add("er:", (three,)) == ("", True) and held.take() == ()  # the stop string is cut


def test_the_grammar_offers_calls_or_the_json_answer() -> None:
    pytest.importorskip("llama_cpp")
    request = _request(
        tools=[WEATHER],
        text={"format": {"type": "json_schema", "name": "p", "schema": {"type": "object"}}},
        max_tool_calls=2,
    )
    shape = answer_shape(request.tools, request.text_format)
    assert shape.grammar is not None and not shape.calls_first and shape.prefill == ""
    assert (
        'root ::= "<tool_call>" call "</tool_call>" ("\\n"? "<tool_call>" call "</tool_call>"){0,1} | answer'
        in shape.grammar
    )
    forced = answer_shape(_request(tools=[WEATHER], tool_choice="required").tools, {"type": "text"})
    assert forced.calls_first and forced.prefill == '<tool_call>{"name": "get_weather", "arguments":'
