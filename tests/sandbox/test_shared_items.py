"""The output items app.schema defines once: the sandbox's answers hold to them exactly (no unknown field, no
coerced value), an answer's items go back as input, and the console reads the same items tolerantly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from app.api.wire import OtherItem, OutputItem, parse_response
from app.schema.items import (
    AnswerItem,
    FunctionCallItem,
    OutputMessage,
    ReasoningItem,
    WebSearchCall,
    read_tolerantly,
    read_tolerantly_as,
)
from tests.conftest import Sandbox

EXACT: TypeAdapter[AnswerItem] = TypeAdapter(AnswerItem)
WEATHER = {
    "type": "function",
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
ASKS: list[dict[str, Any]] = [
    {"model": "service-think", "input": "Why is the sky blue?"},  # reasoning, then a message
    {"model": "service-pro", "input": "How does CIDR work?", "tools": [{"type": "web_search_preview"}]},
    {"model": "service-pro", "input": "Use get_weather for Lisbon", "tools": [WEATHER]},
]


def answers(sandbox: Sandbox, body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The output of a plain answer, and the items of the streamed one's output_item events."""
    with sandbox.api() as client:
        plain: dict[str, Any] = client.post("/responses", json=body).json()
        streamed = client.post("/responses", json={**body, "stream": True}).text
    events = [json.loads(line[6:]) for line in streamed.splitlines() if line.startswith("data: {")]
    return plain["output"], [e["item"] for e in events if e["type"].startswith("response.output_item.")]


@pytest.mark.parametrize("body", ASKS, ids=["reasoning", "web_search", "function_call"])
def test_every_item_the_sandbox_answers_has_the_shared_shape_exactly(
    sandbox: Sandbox, body: dict[str, Any]
) -> None:
    output, streamed = answers(sandbox, body)
    kinds = {item["type"] for item in output}
    assert kinds - {"message"}, kinds  # each ask makes the item it is about
    for item in [*output, *streamed]:
        EXACT.validate_python(item)  # strict, unknown fields refused: the config of app.schema.items


def test_an_answers_items_go_back_as_input(sandbox: Sandbox) -> None:
    for body in ASKS[:2]:
        output, _ = answers(sandbox, {**body, "store": False})
        with sandbox.api() as client:
            again = client.post(
                "/responses", json={**body, "input": [*output, {"role": "user", "content": "And?"}]}
            )
        assert again.status_code == 200, again.text


def test_exactly_read_an_unknown_field_is_refused_and_tolerantly_ignored() -> None:
    call = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}", "colour": "teal"}
    with pytest.raises(ValidationError, match="colour"):
        FunctionCallItem.model_validate(call)
    read = read_tolerantly(FunctionCallItem, call)
    assert (read.call_id, read.arguments) == ("call_1", "{}")


def test_tolerantly_read_an_item_of_a_server_that_says_less_or_more() -> None:
    """What a server that is not the hosted service sends (no ids, no status, a new action, a new part kind,
    a new item type) reads; the exact shape refuses each."""
    sparse = [
        {"type": "web_search_call", "action": {"type": "open_page", "url": "https://a.example"}},
        {"type": "reasoning", "summary": [{"text": "Thinking."}]},
        {"type": "function_call", "call_id": "c", "name": "f"},
        {
            "type": "message",
            "content": [{"type": "output_text", "text": "Hi"}, {"type": "audio", "data": ""}],
        },
        {"type": "image_generation_call", "id": "ig_1", "result": "…"},
    ]
    items = read_tolerantly_as(TypeAdapter(list[OutputItem]), sparse)
    search, reasoning, call, message, other = items
    assert isinstance(search, WebSearchCall) and search.action.query is None and search.status == "completed"
    assert isinstance(reasoning, ReasoningItem) and reasoning.summary[0].text == "Thinking."
    assert isinstance(call, FunctionCallItem) and call.arguments == ""
    assert isinstance(message, OutputMessage) and message.text == "Hi" and message.id == ""
    assert isinstance(other, OtherItem) and other.type == "image_generation_call"
    for item in sparse[:4]:
        with pytest.raises(ValidationError):
            EXACT.validate_python(item)
    response = parse_response({"id": "r", "status": "completed", "output": sparse})
    assert response.output_text == "Hi"
