"""WebSocket mode on /v1/responses: `response.create` over one socket, continuation (also unstored), the
specification's error events, and the gateway's checks at the upgrade."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai.types.responses.responses_server_event import ResponseWsError
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.sync.connection import Connection

from tests.conftest import Sandbox
from tests.sandbox.test_open_responses import EVENT_CLASSES, WEATHER_TOOL, valid_event
from tests.sandbox.test_upstream_tools import chat_upstream  # noqa: F401  # the fixture, a failing upstream

spec = pytest.importorskip("openresponses_types")


def socket(sandbox: Sandbox, key: str | None = None, ip: str | None = None) -> ClientConnection:
    headers = {"authorization": f"Bearer {key or sandbox.creds.api_key}"}
    if ip:
        headers["x-forwarded-for"] = ip
    url = sandbox.url.replace("http://", "ws://", 1) + "/responses"
    return connect(url, additional_headers=headers, open_timeout=10)


def create(ws: Connection, **body: Any) -> list[dict[str, Any]]:
    """One response.create; its events up to the last (completed, failed, incomplete or error)."""
    ws.send(json.dumps({"type": "response.create", "model": "service-pro", **body}))
    events: list[dict[str, Any]] = []
    while not events or events[-1]["type"] not in {
        "response.completed",
        "response.failed",
        "response.incomplete",
        "error",
    }:
        events.append(json.loads(ws.recv(timeout=10)))
    return events


def test_a_tool_loop_over_one_socket_unstored(sandbox: Sandbox) -> None:
    with socket(sandbox) as ws:
        first = create(ws, input="What's the weather like in Paris?", tools=[WEATHER_TOOL], store=False)
        for event in first:
            valid_event(event)
        call = first[-1]["response"]["output"][0]
        assert call["type"] == "function_call"
        output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny, 21 °C"}
        second = create(
            ws,
            previous_response_id=first[-1]["response"]["id"],
            input=[output],
            store=False,
            tools=[WEATHER_TOOL],
        )
    assert second[-1]["type"] == "response.completed"
    assert "Sunny" in second[-1]["response"]["output"][0]["content"][0]["text"]
    assert {event["type"] for event in second} <= set(EVENT_CLASSES)


def test_an_older_unstored_response_is_not_found_and_the_socket_goes_on(sandbox: Sandbox) -> None:
    with socket(sandbox) as ws:
        first = create(ws, input="One", store=False)
        create(ws, input="Two", store=False)
        lost = create(ws, input="Three", previous_response_id=first[-1]["response"]["id"])
        spec.WebSocketErrorEvent.model_validate(lost[-1])
        assert lost == [lost[-1]] and lost[-1]["status"] == 400
        assert lost[-1]["error"]["code"] == "previous_response_not_found"
        for junk in ("not json", b"\xff\xfe", b"[1]", '{"type": "session.update"}'):
            ws.send(junk)
            refused = json.loads(ws.recv(timeout=10))
            assert refused["type"] == "error" and refused["status"] == 400, junk
        again = create(ws, input="Four", stream_id="lane-1")
    assert again[-1]["type"] == "response.completed" and {e["stream_id"] for e in again} == {"lane-1"}


def test_the_gateway_judges_the_upgrade(sandbox: Sandbox) -> None:
    with pytest.raises(InvalidStatus) as wrong_key:
        socket(sandbox, key="sk-proj_nope-nope")
    assert wrong_key.value.response.status_code == 401
    assert json.loads(wrong_key.value.response.body or b"{}")["error"]["code"] == "invalid_api_key"
    with sandbox.admin(ip="203.0.113.5") as admin:
        assert admin.post(f"{sandbox.org_list}/entries", json={"cidr": "203.0.113.0/24"}).status_code == 201
        assert (
            admin.patch(sandbox.org_list, params={"force": "true"}, json={"enabled": True}).status_code == 200
        )
    with pytest.raises(InvalidStatus) as elsewhere:
        socket(sandbox, ip="198.51.100.9")
    assert elsewhere.value.response.status_code == 403
    with socket(sandbox, ip="203.0.113.5") as ws:
        assert create(ws, input="Hi")[-1]["type"] == "response.completed"
    with pytest.raises(InvalidStatus) as admin_key:
        socket(sandbox, key=sandbox.creds.admin_key, ip="203.0.113.5")
    assert admin_key.value.response.status_code == 403


def test_the_official_client_connects(sandbox: Sandbox) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0)
    with client, client.responses.connect() as connection:
        connection.response.create(model="service-pro", input="Hello over a socket")
        kinds = []
        for event in connection:
            kinds.append(event.type)
            if event.type == "response.completed":
                break
    assert kinds[0] == "response.created" and "response.output_text.delta" in kinds


def test_each_message_counts_against_the_rate_limit(sandbox_factory: Any) -> None:
    limited = sandbox_factory(rate_limit_per_minute=3)  # the upgrade is one request, then two messages
    with socket(limited) as ws:
        assert create(ws, input="One")[-1]["type"] == "response.completed"
        assert create(ws, input="Two")[-1]["type"] == "response.completed"
        refused = create(ws, input="Three")
    assert refused[-1]["status"] == 429 and refused[-1]["error"]["code"] == "rate_limit_exceeded"


def test_a_failure_mid_answer_is_a_nested_error_event(sandbox_factory: Any, chat_upstream: str) -> None:  # noqa: F811
    front = sandbox_factory(engine="upstream", upstream_url=chat_upstream, upstream_api="chat")
    with socket(front) as ws:
        events = create(ws, input="please fail")
        assert create(ws, input="please fail")[-1]["type"] == "error"  # the socket goes on
    error = events[-1]
    spec.ErrorStreamingEvent.model_validate(error)
    ResponseWsError.model_validate(error, strict=True)
    assert error["error"]["code"] == "upstream_error" and "the model crashed" in error["error"]["message"]


def test_an_upgrade_claiming_a_body_is_served_as_any_upgrade(sandbox: Sandbox) -> None:
    url = sandbox.url.replace("http://", "ws://", 1) + "/responses"
    headers = {"authorization": f"Bearer {sandbox.creds.api_key}", "content-length": "0"}
    with connect(url, additional_headers=headers, open_timeout=10) as ws:
        assert create(ws, input="Hi")[-1]["type"] == "response.completed"


def test_a_read_only_key_cannot_open_a_socket(sandbox: Sandbox) -> None:
    project = f"/organizations/{sandbox.creds.org_id}/projects/{sandbox.creds.project_id}"
    with sandbox.admin() as admin:
        made = admin.post(f"{project}/service_accounts", json={"name": "reader", "permissions": "read_only"})
    with pytest.raises(InvalidStatus) as refused:
        socket(sandbox, key=made.json()["api_key"]["value"])
    assert refused.value.response.status_code == 403


def test_a_failed_continuation_evicts_the_response_it_named(sandbox: Sandbox) -> None:
    """The specification (WebSocket mode): a continuation turn that fails with a 4xx or 5xx evicts the
    `previous_response_id` it named from the socket's memory; continuing from it again is
    `previous_response_not_found`."""
    orphan = {"type": "function_call_output", "call_id": "call_missing", "output": "No such call was made."}
    with socket(sandbox) as ws:
        first = create(ws, input="Remember the code word: ember. Reply with OK.", store=False)
        named = first[-1]["response"]["id"]
        failed = create(ws, input=[orphan], previous_response_id=named, store=False)
        retried = create(
            ws, input="Continue. Reply with exactly: stale", previous_response_id=named, store=False
        )
        after = create(ws, input="A new chain.", store=False)
    assert failed[-1]["type"] == "error" and failed[-1]["status"] == 400
    spec.WebSocketErrorEvent.model_validate(retried[-1])
    assert retried[-1]["error"]["code"] == "previous_response_not_found"
    assert after[-1]["type"] == "response.completed"
