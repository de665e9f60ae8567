"""Parsing at the edge: typed responses and events, unknown things tolerated, every malformed shape refused
with an InvalidResponse that says what was wrong (never a raw AttributeError or ValidationError)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.api.errors import InvalidResponse
from app.api.events import (
    ErrorEvent,
    OtherEvent,
    OutputItemEvent,
    ResponseEvent,
    TextDeltaEvent,
    WebSearchProgress,
    parse_event,
)
from app.api.wire import OtherItem, parse_response
from app.schema.items import FunctionCallItem, OutputMessage, ReasoningItem, WebSearchCall

FULL: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1700000000,
    "status": "completed",
    "model": "service-pro",
    "something_new": {"x": 1},
    "output": [
        {
            "type": "web_search_call",
            "id": "ws_1",
            "status": "completed",
            "action": {"type": "search", "query": "cidr"},
        },
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking."}]},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {"type": "file_search_call", "id": "fs_1", "queries": ["x"]},
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {
                    "type": "output_text",
                    "text": "Hello ",
                    "annotations": [
                        {"type": "url_citation", "url": "https://a.example", "title": "A", "start_index": 0},
                        {"type": "file_citation", "file_id": "f"},
                    ],
                },
                {"type": "refusal", "refusal": "no"},
                {"type": "output_text", "text": "world"},
            ],
        },
    ],
    "usage": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5, "input_tokens_details": {}},
    "incomplete_details": None,
}


def test_a_full_response_reads_as_attributes() -> None:
    response = parse_response(FULL)
    kinds = [type(item) for item in response.output]
    assert kinds == [WebSearchCall, ReasoningItem, FunctionCallItem, OtherItem, OutputMessage]
    assert response.output_text == "Hello world"
    assert [c.url for c in response.citations] == ["https://a.example"]
    assert response.search_queries == ["cidr"] and response.reasoning_summary == "Thinking."
    assert response.usage is not None and response.usage.total_tokens == 5
    assert response.stop_reason == "completed"


def test_a_minimal_response_and_nulls_are_tolerated() -> None:
    response = parse_response(
        {"status": "incomplete", "output": None, "incomplete_details": {"reason": "max_output_tokens"}}
    )
    assert response.output == () and response.output_text == "" and response.usage is None
    assert response.stop_reason == "incomplete, max_output_tokens"


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ("a string", "not a JSON object"),
        ([1, 2], "not a JSON object"),
        ({"output": "text"}, "output"),
        ({"output": [{"type": "message", "content": [{"type": "output_text", "text": 5}]}]}, "text"),
        ({"output": [{"type": "message", "content": "hello"}]}, "content"),
        ({"output": [{"type": "reasoning", "summary": [{"text": None}]}]}, "summary"),
        ({"output": [{"type": "web_search_call", "action": "search"}]}, "action"),
        (
            {
                "output": [
                    {
                        "type": "message",
                        "content": [
                            {"type": "output_text", "text": "x", "annotations": [{"type": "url_citation"}]}
                        ],
                    }
                ]
            },
            "url",
        ),
        ({"output": [42]}, "output"),
        ({"usage": {"input_tokens": "many"}}, "usage.input_tokens"),
        ({"usage": []}, "usage"),
        ({"error": "boom"}, "error"),
        ({"status": 3}, "status"),
    ],
)
def test_every_malformed_response_is_a_typed_error_naming_the_field(data: object, named: str) -> None:
    with pytest.raises(InvalidResponse) as caught:
        parse_response(data)
    assert named in str(caught.value) and str(caught.value).endswith(".")


def event(data: dict[str, object] | str, name: str = "") -> object:
    return parse_event(name, data if isinstance(data, str) else json.dumps(data), 1.5)


def test_events_are_typed_by_their_type() -> None:
    assert isinstance(event({"type": "response.created", "response": {"id": "r"}}), ResponseEvent)
    final = event({"type": "response.completed", "response": FULL, "sequence_number": 9})
    assert isinstance(final, ResponseEvent) and final.is_final and final.response.output_text == "Hello world"
    for name in ("response.output_text.delta", "response.text.delta"):
        delta = event({"type": name, "delta": "Hi", "item_id": "m", "extra": True})
        assert isinstance(delta, TextDeltaEvent) and delta.delta == "Hi"
        assert delta.received_at == 1.5
    item = event({"type": "response.output_item.done", "output_index": 0, "item": FULL["output"][0]})
    assert isinstance(item, OutputItemEvent) and isinstance(item.item, WebSearchCall)
    search = event({"type": "response.web_search_call.searching", "item_id": "ws_1"})
    assert isinstance(search, WebSearchProgress)
    assert isinstance(event({"type": "response.content_part.added", "part": {}}), OtherEvent)
    assert isinstance(event({"type": "response.brand_new.thing"}), OtherEvent)
    assert isinstance(
        event({"delta": "x"}, name="response.output_text.delta"), TextDeltaEvent
    )  # type from `event:`


def test_done_and_error_events() -> None:
    assert event("[DONE]") is None
    flat = event({"type": "error", "message": "model crashed", "code": "server_error"})
    assert isinstance(flat, ErrorEvent) and flat.message == "model crashed" and flat.code == "server_error"
    nested = event({"type": "error", "error": {"message": "overloaded", "code": 503}})
    assert isinstance(nested, ErrorEvent) and nested.message == "overloaded" and nested.code == "503"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ("{not json", "malformed event: '{not json'"),
        ("[1, 2]", "not a JSON object"),
        ('"text"', "not a JSON object"),
        ("{}", "without a type"),
        ('{"type": 7}', "without a type"),
        ('{"type": "response.completed", "response": "done"}', "response is not an object"),
        ('{"type": "response.completed"}', "response is not an object"),
        ('{"type": "response.output_text.delta"}', "delta"),
        ('{"type": "response.output_text.delta", "delta": 5}', "delta"),
        ('{"type": "response.output_item.done", "item": "x"}', "item"),
        ('{"type": "response.completed", "response": {"output": 5}}', "output"),
        ('{"type": "error", "message": ["a"]}', "message"),
        ("x" * 500, "…"),
    ],
)
def test_every_malformed_event_is_a_typed_error(data: str, said: str) -> None:
    with pytest.raises(InvalidResponse) as caught:
        parse_event("", data, 0.0)
    assert said in str(caught.value) and len(str(caught.value)) < 300


def test_a_known_type_with_a_new_field_and_an_unknown_type_both_stream() -> None:
    """The union dispatches on the type: a known type is its model whatever else it carries; an unknown one is
    an OtherEvent that keeps its type, never an error."""
    added = event({"type": "response.output_item.added", "item": {"type": "message"}, "new": 1})
    assert isinstance(added, OutputItemEvent) and not added.done
    other = event({"type": "response.audio.delta", "delta": 5})
    assert isinstance(other, OtherEvent) and other.type == "response.audio.delta"


def test_error_codes_the_console_knows_are_typed_and_unknown_ones_kept() -> None:
    from app.api.errors import Conflict, ErrorCode, status_error

    def body(code: object) -> dict[str, object]:
        return {"error": {"message": "no", "type": "conflict_error", "code": code, "param": None}}

    known = status_error(409, body("would_block_caller"), {})
    assert isinstance(known, Conflict) and known.code is ErrorCode.WOULD_BLOCK_CALLER
    newer = status_error(409, body("quota_frozen"), {})
    assert newer.code == "quota_frozen" and not isinstance(newer.code, ErrorCode)
    assert status_error(409, body(7), {}).code == "7" and status_error(409, body(None), {}).code is None
