"""The Responses API: inputs, images, search, structured outputs, reasoning, chaining, streaming, errors."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import httpx
import jsonschema
import pytest
from PIL import Image

from app.sandbox.store.database import run_blocking
from tests.conftest import Sandbox, SandboxFactory


def data_url(image_format: str = "PNG", size: tuple[int, int] = (640, 480)) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, image_format)
    mime = {"PNG": "png", "JPEG": "jpeg", "WEBP": "webp", "GIF": "gif"}[image_format]
    return f"data:image/{mime};base64,{base64.b64encode(buffer.getvalue()).decode()}"


def create(sandbox: Sandbox, **body: object) -> httpx.Response:
    body.setdefault("model", "service-pro")
    with sandbox.api() as client:
        return client.post("/responses", json=body)


def output_text(response: dict[str, Any]) -> str:
    return "".join(
        part["text"]
        for item in response["output"]
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    )


def sse_events(raw: str) -> list[dict[str, Any]]:
    events = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        event = json.loads(lines["data"])
        assert event["type"] == lines["event"]
        events.append(event)
    return events


def test_string_input(sandbox: Sandbox) -> None:
    response = create(sandbox, input="Tell me about tides")
    body = response.json()
    assert response.status_code == 200
    assert body["object"] == "response" and body["id"].startswith("resp_") and body["status"] == "completed"
    text = output_text(body)
    assert "simulated model" in text and "Tell me about tides" in text
    usage = body["usage"]
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"] > 0


def test_message_array_with_instructions(sandbox: Sandbox) -> None:
    messages = [
        {"role": "user", "content": "My name is Ada."},
        {"role": "assistant", "content": [{"type": "output_text", "text": "Hello Ada."}]},
        {"role": "user", "content": [{"type": "input_text", "text": "What is my name?"}]},
    ]
    body = create(sandbox, input=messages, instructions="Answer briefly").json()
    text = output_text(body)
    assert "turn 2" in text and "My name is Ada." in text and "Answer briefly" in text


@pytest.mark.parametrize("image_format", ["PNG", "JPEG", "WEBP", "GIF"])
def test_image_input_is_read(sandbox: Sandbox, image_format: str) -> None:
    content = [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": data_url(image_format)},
    ]
    body = create(sandbox, input=[{"role": "user", "content": content}]).json()
    assert f"a {image_format} image of 640×480 pixels" in output_text(body)
    assert body["usage"]["input_tokens"] >= 85 + 2 * 170  # 640×480 at high detail: two 512-pixel tiles


def test_remote_image_url_is_accepted_not_fetched(sandbox: Sandbox) -> None:
    content = [{"type": "input_image", "image_url": "https://example.com/cat.png"}]
    body = create(sandbox, input=[{"role": "user", "content": content}]).json()
    assert "not fetched" in output_text(body)


@pytest.mark.parametrize(
    ("image_url", "code"),
    [
        ("data:image/png;base64,!!!notbase64", "invalid_image"),
        ("data:image/png;base64," + base64.b64encode(b"this is not an image").decode(), "invalid_image"),
        (
            "data:image/png;base64," + base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode(),
            "invalid_image",
        ),
        ("ftp://example.com/cat.png", "invalid_image"),
        ("data:image/bmp;base64," + base64.b64encode(b"BM" + b"\0" * 60).decode(), "invalid_image"),
    ],
)
def test_broken_images_are_400_and_nothing_is_stored(sandbox: Sandbox, image_url: str, code: str) -> None:
    content = [{"type": "input_image", "image_url": image_url}]
    response = create(sandbox, input=[{"role": "user", "content": content}])
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and error["param"] == "input[0].content[0].image_url"
    assert sandbox.server.state.tokens_by_project[sandbox.creds.project_id] == 0


def test_oversized_image_is_refused(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(max_image_bytes=1000)
    content = [{"type": "input_image", "image_url": data_url("PNG", (800, 800))}]
    response = create(sandbox, input=[{"role": "user", "content": [*content]}])
    assert response.json()["error"]["code"] in {"image_too_large", "invalid_image"}
    assert response.status_code == 400


def test_web_search_with_citations(sandbox: Sandbox) -> None:
    body = create(
        sandbox, input="How does CIDR notation work?", tools=[{"type": "web_search_preview"}]
    ).json()
    search, message = body["output"]
    assert search["type"] == "web_search_call" and search["status"] == "completed"
    assert "cidr" in search["action"]["query"] and search["action"]["type"] == "search"
    part = message["content"][0]
    citations = part["annotations"]
    assert citations and citations[0]["type"] == "url_citation"
    for citation in citations:
        cited = part["text"][citation["start_index"] : citation["end_index"]]
        assert cited and citation["url"].startswith("https://")
    assert any("CIDR" in part["text"][c["start_index"] : c["end_index"]] for c in citations)


def test_structured_output_validates_against_schema(sandbox: Sandbox) -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "tags": {"type": "array", "items": {"enum": ["food", "art"]}, "minItems": 1},
            "budget": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        },
        "required": ["city", "days", "tags", "budget"],
        "additionalProperties": False,
    }
    text_format = {"format": {"type": "json_schema", "name": "trip", "schema": schema, "strict": True}}
    body = create(sandbox, input="Plan a trip to Lisbon", text=text_format).json()
    value = json.loads(output_text(body))
    jsonschema.validate(value, schema)
    assert body["text"]["format"]["name"] == "trip"


def test_invalid_schema_is_400(sandbox: Sandbox) -> None:
    text_format = {"format": {"type": "json_schema", "name": "bad", "schema": {"type": "objekt"}}}
    response = create(sandbox, input="x", text=text_format)
    assert response.status_code == 400 and response.json()["error"]["param"] == "text.format.schema"


def test_think_model_has_reasoning_item(sandbox: Sandbox) -> None:
    body = create(sandbox, model="service-think", input="Why is the sky blue?").json()
    reasoning = body["output"][0]
    assert reasoning["type"] == "reasoning" and reasoning["summary"][0]["type"] == "summary_text"
    assert body["usage"]["output_tokens_details"]["reasoning_tokens"] > 0


def test_chained_turns_and_retrieval(sandbox: Sandbox) -> None:
    first = create(sandbox, input="My favourite colour is teal.").json()
    second = create(sandbox, input="What did I say?", previous_response_id=first["id"]).json()
    assert second["previous_response_id"] == first["id"]
    assert "turn 2" in output_text(second) and "teal" in output_text(second)
    with sandbox.api() as client:
        stored = client.get(f"/responses/{second['id']}")
    assert stored.status_code == 200 and stored.json() == second


def test_store_false_is_not_kept(sandbox: Sandbox) -> None:
    body = create(sandbox, input="forget me", store=False).json()
    with sandbox.api() as client:
        assert client.get(f"/responses/{body['id']}").json()["error"]["code"] == "response_not_found"
    chained = create(sandbox, input="x", previous_response_id=body["id"])
    assert chained.status_code == 400 and chained.json()["error"]["code"] == "previous_response_not_found"


def test_responses_are_private_to_their_project(sandbox: Sandbox) -> None:
    body = create(sandbox, input="mine").json()
    other_project = run_blocking(
        sandbox.server.store.organizations.create_project(sandbox.creds.org_id, "Other")
    )
    other_key = run_blocking(sandbox.server.store.keys.create("project", sandbox.creds.org_id, other_project))
    with sandbox.client(other_key) as client:
        assert client.get(f"/responses/{body['id']}").status_code == 404


def test_max_output_tokens_marks_incomplete(sandbox: Sandbox) -> None:
    body = create(sandbox, input="Write 500 words about rain", max_output_tokens=20).json()
    assert body["status"] == "incomplete" and body["incomplete_details"] == {"reason": "max_output_tokens"}
    assert body["usage"]["output_tokens"] <= 20


def test_admin_key_cannot_call_inference(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        response = admin.post("/responses", json={"model": "service-pro", "input": "x"})
    assert response.status_code == 403 and response.json()["error"]["code"] == "insufficient_permissions"


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"input": "x"}, "model", "missing_required_parameter"),
        ({"model": "service-nope", "input": "x"}, "model", "model_not_found"),
        ({"model": "service-pro"}, "input", "missing_required_parameter"),
        ({"model": "service-pro", "input": "x", "colour": 1}, "colour", "unknown_parameter"),
        ({"model": "service-pro", "input": 5}, "input", "invalid_type"),
        ({"model": "service-pro", "input": []}, "input", "invalid_type"),
        (
            {"model": "service-pro", "input": [{"role": "robot", "content": "x"}]},
            "input[0].role",
            "invalid_value",
        ),
        (
            {"model": "service-pro", "input": [{"role": "user", "content": [{"type": "audio"}]}]},
            "input[0].content[0].type",
            "invalid_value",
        ),
        ({"model": "service-pro", "input": "x", "temperature": 3}, "temperature", "invalid_value"),
        ({"model": "service-pro", "input": "x", "temperature": True}, "temperature", "invalid_type"),
        ({"model": "service-pro", "input": "x", "stream": "yes"}, "stream", "invalid_type"),
        (
            {"model": "service-pro", "input": "x", "tools": [{"type": "code"}]},
            "tools[0].type",
            "invalid_value",
        ),
        (
            {"model": "service-pro", "input": "x", "max_output_tokens": 2},
            "max_output_tokens",
            "invalid_value",
        ),
        ({"model": "service-pro", "input": "x", "metadata": {"a": 1}}, "metadata", "invalid_value"),
        (
            {"model": "service-pro", "input": "x", "text": {"format": {"type": "yaml"}}},
            "text.format.type",
            "invalid_value",
        ),
        (
            {"model": "service-pro", "input": "x", "previous_response_id": "resp_nope"},
            "previous_response_id",
            "previous_response_not_found",
        ),
    ],
)
def test_bad_bodies_are_clear_400s(sandbox: Sandbox, body: dict[str, Any], param: str, code: str) -> None:
    with sandbox.api() as client:
        response = client.post("/responses", json=body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["param"], error["code"], error["type"]) == (param, code, "invalid_request_error")
    assert error["message"]


def test_stream_has_the_full_event_sequence(sandbox: Sandbox) -> None:
    with sandbox.api() as client:
        response = client.post(
            "/responses",
            json={
                "model": "service-pro",
                "input": "Hi",
                "stream": True,
                "tools": [{"type": "web_search_preview"}],
            },
        )
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    types = [event["type"] for event in events]
    assert types[:2] == ["response.created", "response.in_progress"]
    assert types[-1] == "response.completed"
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    for expected in (
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.content_part.added",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
    ):
        assert expected in types
    deltas = [event["delta"] for event in events if event["type"] == "response.output_text.delta"]
    final = events[-1]["response"]
    assert "".join(deltas) == output_text(final) and final["usage"]["total_tokens"] > 0


def test_delta_event_name_can_follow_the_interface_document(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(delta_event="text")
    with sandbox.api() as client:
        events = sse_events(
            client.post("/responses", json={"model": "service-pro", "input": "Hi", "stream": True}).text
        )
    types = {event["type"] for event in events}
    assert "response.text.delta" in types and "response.output_text.delta" not in types


def test_official_client_create_stream_and_chain(sandbox: Sandbox) -> None:
    openai = pytest.importorskip("openai")
    with openai.OpenAI(base_url=sandbox.url, api_key=sandbox.creds.api_key, max_retries=0) as client:
        first = client.responses.create(model="service-pro", input="Remember the word lighthouse.")
        assert "lighthouse" in first.output_text and first.usage.total_tokens > 0
        with client.responses.stream(
            model="service-pro", input="And now?", previous_response_id=first.id
        ) as stream:
            deltas = [event.delta for event in stream if event.type == "response.output_text.delta"]
            final = stream.get_final_response()
        assert "".join(deltas) == final.output_text and "turn 2" in final.output_text
        assert final.usage.total_tokens > 0
        again = client.responses.retrieve(final.id)
        assert again.output_text == final.output_text


def test_official_client_sees_typed_errors(sandbox: Sandbox) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=sandbox.url, api_key="sk-wrong", max_retries=0)
    with client, pytest.raises(openai.AuthenticationError):
        client.responses.create(model="service-pro", input="x")
