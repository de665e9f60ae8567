"""The Playground's pure rules: which request a turn sends, what an error means, whether a schema is usable."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.api.errors import (
    ApiError,
    BadRequest,
    ConnectionFailed,
    InvalidResponse,
    IpNotAllowed,
    RateLimited,
    StreamError,
    TimedOut,
    Unauthorized,
)
from app.api.wire import parse_response
from app.core.playground.reasoning import is_reasoning_model
from app.core.playground.schema_check import check_schema
from app.core.playground.turns import (
    Attachment,
    ErrorKind,
    RequestOptions,
    Turn,
    TurnStatus,
    build_request,
    failure_of,
    final_status,
    redacted_body,
)


def answered(
    prompt: str, text: str, response_id: str | None = "resp_1", status: TurnStatus = TurnStatus.COMPLETED
) -> Turn:
    response = parse_response({"id": response_id, "status": "completed"}) if response_id is not None else None
    return Turn(prompt, [], "m", True, text=text, response=response, status=status)


def test_first_turn_is_the_prompt_alone() -> None:
    plan = build_request([], "Hello", [], RequestOptions("m"))
    assert plan.body == {"model": "m", "input": "Hello"} and not plan.chained and plan.chain_note == ""


def test_chained_turn_sends_the_previous_id_only() -> None:
    plan = build_request([answered("Hi", "Hello")], "Again", [], RequestOptions("m"))
    assert plan.body["previous_response_id"] == "resp_1" and plan.body["input"] == "Again" and plan.chained


def test_whole_history_sends_assistant_text_as_plain_strings() -> None:
    earlier = [answered("Hi", "Hello"), Turn("lost", [], "m", True, status=TurnStatus.FAILED)]
    plan = build_request(earlier, "Again", [], RequestOptions("m", chain_on_server=False))
    assert plan.body["input"] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": "Again"},
    ]
    assert plan.chain_note == ""  # the person chose whole history: nothing to explain


@pytest.mark.parametrize(
    ("previous", "why"),
    [
        (answered("Hi", "Partial", None, TurnStatus.STOPPED), "stopped"),
        (answered("Hi", "Hello", ""), "the server sent none"),
    ],
)
def test_a_broken_chain_says_so_and_sends_the_history(previous: Turn, why: str) -> None:
    earlier = [answered("First", "One"), previous]
    plan = build_request(earlier, "Next", [], RequestOptions("m"))
    assert "previous_response_id" not in plan.body and not plan.chained
    assert why in plan.chain_note and "whole history" in plan.chain_note
    assert len(plan.body["input"]) == 5


def test_a_failed_turn_at_the_end_does_not_break_the_chain() -> None:
    earlier = [answered("Hi", "Hello"), Turn("x", [], "m", True, status=TurnStatus.FAILED)]
    plan = build_request(earlier, "Again", [], RequestOptions("m"))
    assert plan.body["previous_response_id"] == "resp_1" and plan.chain_note == ""


def test_options_images_tools_and_schema() -> None:
    image = Attachment("data:image/png;base64," + "A" * 200, "chart.png", 85)
    options = RequestOptions(
        "m",
        instructions="  Be brief ",
        temperature=0.2,
        max_output_tokens=50,
        web_search=True,
        schema={"type": "object"},
    )
    body: dict[str, Any] = json.loads(json.dumps(build_request([], "What is it?", [image], options).body))
    assert body["input"][0]["content"][1] == {"type": "input_image", "image_url": image.url}
    assert body["instructions"] == "Be brief" and body["temperature"] == 0.2 and "top_p" not in body
    assert body["tools"] == [{"type": "web_search_preview"}]
    assert body["text"]["format"]["schema"] == {"type": "object"}
    shown = redacted_body(body)["input"][0]["content"][1]["image_url"]
    assert "characters" in shown and len(shown) < 100


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (
            IpNotAllowed(403, "blocked", "ip_not_allowed", headers={"x-request-source-ip": "203.0.113.9"}),
            ErrorKind.BLOCKED,
        ),
        (Unauthorized(401, "bad key"), ErrorKind.UNAUTHORIZED),
        (RateLimited(429, "slow", headers={"retry-after": "12"}), ErrorKind.RATE_LIMITED),
        (ConnectionFailed("lost"), ErrorKind.CONNECTION),
        (StreamError("broke"), ErrorKind.CONNECTION),
        (TimedOut("slow"), ErrorKind.CONNECTION),
        (BadRequest(400, "bad"), ErrorKind.OTHER),
        (InvalidResponse("odd"), ErrorKind.OTHER),
    ],
)
def test_failure_of_each_error(error: ApiError, kind: ErrorKind) -> None:
    failure = failure_of(error)
    assert failure.kind == kind and failure.message
    if kind == ErrorKind.BLOCKED:
        assert failure.source_ip == "203.0.113.9"
    if kind == ErrorKind.RATE_LIMITED:
        assert failure.retry_after == 12


def test_final_status_of_a_response() -> None:
    assert final_status(parse_response({"status": "completed"})) == TurnStatus.COMPLETED
    assert final_status(parse_response({"status": "incomplete"})) == TurnStatus.INCOMPLETE
    assert final_status(parse_response({"status": "failed"})) == TurnStatus.FAILED
    assert final_status(parse_response({"status": "cancelled"})) == TurnStatus.FAILED


def test_check_schema() -> None:
    assert check_schema('{"type": "object"}').ok
    assert "Not valid JSON" in check_schema("{oops").message
    assert "must be a JSON object" in check_schema("[]").message
    assert "Not a valid JSON Schema" in check_schema('{"type": "objekt"}').message


@pytest.mark.parametrize(
    ("model", "reasons"),
    [
        ("service-think", True),
        ("service-think-mini", True),
        ("acme-think", True),
        ("Service-Think-2", True),
        ("service-pro", False),
        ("service-ultra", False),
        ("rethinker", False),
    ],
)
def test_which_models_reason(model: str, reasons: bool) -> None:
    assert is_reasoning_model(model) is reasons


def test_reasoning_effort_is_sent_to_reasoning_models_only() -> None:
    think = build_request([], "Why?", [], RequestOptions("service-think", reasoning_effort="low")).body
    assert think["reasoning"] == {"effort": "low"}
    assert "reasoning" not in build_request([], "Why?", [], RequestOptions("service-think")).body
    pro = build_request([], "Why?", [], RequestOptions("service-pro", reasoning_effort="low")).body
    assert "reasoning" not in pro


def test_a_message_stopped_before_any_answer_is_said_to_be_left_out() -> None:
    stopped = Turn("Never answered", [], "m", True, status=TurnStatus.STOPPED)
    plan = build_request([answered("Hi", "Hello"), stopped], "Next", [], RequestOptions("m"))
    assert plan.body["previous_response_id"] == "resp_1"
    assert "stopped before any answer" in plan.chain_note and "chains on the answer before" in plan.chain_note
    alone = build_request([stopped], "Next", [], RequestOptions("m"))
    assert alone.body["input"] == "Next" and "left out" in alone.chain_note
    assert build_request([stopped], "Next", [], RequestOptions("m", chain_on_server=False)).chain_note == ""


def test_a_stopped_answer_says_the_history_goes_with_its_partial_text() -> None:
    partial = answered("Hi", "Hel", None, TurnStatus.STOPPED)
    plan = build_request([partial], "Next", [], RequestOptions("m"))
    assert "was stopped before it finished" in plan.chain_note and "partial answer" in plan.chain_note
    assert plan.body["input"][1] == {"role": "assistant", "content": "Hel"}


def test_a_turn_saved_by_an_older_console_reopens_with_its_items() -> None:
    """Saved items are read tolerantly: an older console wrote "" where a server said nothing, and null for a
    search without an action; an item type it kept bare comes back bare; a damaged item is left out alone."""
    from app.api.wire import OtherItem, citations, reasoning_summary, search_queries
    from app.core.playground.turn_record import restore_shown, shown_again
    from app.schema.items import ReasoningItem, WebSearchCall

    saved = {
        "items": [
            {"type": "web_search_call", "id": "", "status": "", "action": None},
            {
                "type": "web_search_call",
                "id": "ws_2",
                "status": "completed",
                "action": {"type": "search", "query": "cidr"},
            },
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Thinking."}]},
            {"type": "file_search_call"},
            {"type": "reasoning", "summary": "not a list"},
        ],
        "citations": [{"type": "url_citation", "url": "https://a.example", "title": "A"}, {"url": 5}],
    }
    turn = Turn("Why?", [], "m", True, text="Because.")
    restore_shown(turn, saved)
    kinds = [type(item) for item in turn.items]
    assert kinds[:4] == [WebSearchCall, WebSearchCall, ReasoningItem, OtherItem]
    assert search_queries(turn.items) == ["", "cidr"] and reasoning_summary(turn.items) == "Thinking."
    assert [c.url for c in citations(turn.items)] == ["https://a.example"]
    again = Turn("Why?", [], "m", True, text="Because.")
    restore_shown(again, json.loads(json.dumps(shown_again(turn))))  # saved again, reopened again
    assert search_queries(again.items) == ["", "cidr"] and len(citations(again.items)) == 1
