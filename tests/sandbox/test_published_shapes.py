"""What /openapi.json publishes agrees with what the server accepts; Unicode spaces around an address are
refused by name, not dropped."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from tests.conftest import Sandbox


@pytest.fixture
def document(sandbox: Sandbox) -> dict[str, Any]:
    with sandbox.api() as client:
        published: dict[str, Any] = client.get(sandbox.url.removesuffix("/v1") + "/openapi.json").json()
    return published


def schema_of(document: dict[str, Any], name: str) -> dict[str, Any]:
    return {**document["components"]["schemas"][name], "components": document["components"]}


def accepted(document: dict[str, Any], name: str, value: object) -> bool:
    schema = schema_of(document, name)
    return bool(jsonschema.Draft202012Validator(schema).is_valid(value))  # refs point at #/components/schemas


@pytest.mark.parametrize("cidr", ["0", "1.2.3.4\u3000", "\u00a01.2.3.4", "office"])
def test_an_entry_the_server_refuses_the_document_refuses(
    sandbox: Sandbox, document: dict[str, Any], cidr: str
) -> None:
    with sandbox.admin() as admin:
        answer = admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "cidr"
    assert not accepted(document, "EntryCreate", {"cidr": cidr})


def test_an_entry_the_server_takes_the_document_takes(sandbox: Sandbox, document: dict[str, Any]) -> None:
    for cidr in ("203.0.113.0/24", " 198.51.100.7\t", "2001:db8::/32", "::ffff:192.0.2.1"):
        assert accepted(document, "EntryCreate", {"cidr": cidr}), cidr
        with sandbox.admin() as admin:
            assert admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr}).status_code == 201, cidr


def test_a_unicode_space_is_named(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        answer = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "1.2.3.4\u3000"})
    assert "U+3000" in answer.json()["error"]["message"]


def test_an_empty_schema_name_is_refused_by_both(sandbox: Sandbox, document: dict[str, Any]) -> None:
    text_format = {"type": "json_schema", "name": "", "schema": {"type": "object"}}
    with sandbox.api() as client:
        answer = client.post(
            "/responses", json={"model": "service-pro", "input": "x", "text": {"format": text_format}}
        )
    assert answer.status_code == 400
    assert not accepted(document, "FormatJsonSchema", text_format)
    assert accepted(document, "FormatJsonSchema", {**text_format, "name": "trip"})


def test_every_kind_of_answer_holds_to_the_published_response_and_a_users_message_does_not(
    sandbox: Sandbox, document: dict[str, Any]
) -> None:
    """The document's `output` is the items an answer holds, not the items a request may send."""
    weather = {"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}
    asks: list[dict[str, Any]] = [
        {"model": "service-think", "input": "Why is the sky blue?"},
        {"model": "service-pro", "input": "How does CIDR work?", "tools": [{"type": "web_search_preview"}]},
        {"model": "service-pro", "input": "Use get_weather", "tools": [weather]},
    ]
    with sandbox.api() as client:
        answers = [client.post("/responses", json=body).json() for body in asks]
    for answer in answers:
        assert accepted(document, "ResponseObject", answer), answer
    kinds = {item["type"] for answer in answers for item in answer["output"]}
    assert kinds == {"message", "reasoning", "web_search_call", "function_call"}
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    assert not accepted(document, "ResponseObject", {**answers[0], "output": [user]})
    call_output = {"type": "function_call_output", "call_id": "c", "output": "{}"}
    assert not accepted(document, "ResponseObject", {**answers[0], "output": [call_output]})
