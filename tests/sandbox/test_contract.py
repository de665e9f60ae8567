"""The request contract at the edges: one rule for descriptions, strict query booleans, lone surrogates named
by field, short quotes of the input, Allow on 405, and a document that refuses what the server refuses."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.netrules import EntryError, parse_entry
from app.sandbox.contract.admin import CIDR_SHAPE
from tests.conftest import Sandbox


def raw_post(client: httpx.Client, path: str, text: str) -> httpx.Response:
    return client.post(path, content=text.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("description", [0, False, [], {}, 1, True, 1.5])
def test_a_description_that_is_not_a_string_is_refused(sandbox: Sandbox, description: Any) -> None:
    with sandbox.admin() as admin:
        response = admin.post(
            f"{sandbox.org_list}/entries", json={"cidr": "192.0.2.1", "description": description}
        )
        assert admin.get(sandbox.org_list).json()["entries"] == []
    error = response.json()["error"]
    assert response.status_code == 400 and (error["param"], error["code"]) == ("description", "invalid_type")


@pytest.mark.parametrize(
    ("body", "stored"), [({}, ""), ({"description": None}, ""), ({"description": "x"}, "x")]
)
def test_an_absent_or_null_description_is_empty(sandbox: Sandbox, body: dict[str, Any], stored: str) -> None:
    with sandbox.admin() as admin:
        response = admin.post(f"{sandbox.org_list}/entries", json={"cidr": "192.0.2.1", **body})
    assert response.status_code == 201 and response.json()["description"] == stored


@pytest.mark.parametrize(
    "query", ["force=null", "force=1", "force=0", "force=TRUE", "force=", "force=true&force=false"]
)
def test_force_takes_only_true_or_false(sandbox: Sandbox, query: str) -> None:
    with sandbox.admin() as admin:
        response = admin.patch(f"{sandbox.org_list}?{query}", json={"enabled": True})
        assert admin.get(sandbox.org_list).json()["enabled"] is False
    assert response.status_code == 400 and response.json()["error"]["param"] == "force"


def test_an_unknown_query_parameter_is_refused(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        response = admin.patch(f"{sandbox.org_list}?forse=true", json={"enabled": True})
    assert response.status_code == 400 and response.json()["error"]["code"] == "unknown_parameter"


@pytest.mark.parametrize("query", ["force=1", "force=true", "forse=true"])
def test_adding_an_entry_takes_no_query_parameter(sandbox: Sandbox, query: str) -> None:
    """Issue 38: an add never locks anyone out, so it has no `force` to take; any parameter is refused, as
    PATCH and DELETE refuse the ones they do not know, and nothing is added."""
    with sandbox.admin() as admin:
        response = admin.post(f"{sandbox.org_list}/entries?{query}", json={"cidr": "192.0.2.1"})
        assert admin.get(sandbox.org_list).json()["entries"] == []
    error = response.json()["error"]
    assert response.status_code == 400 and error["code"] == "unknown_parameter"
    assert error["param"] == query.split("=")[0]


SURROGATE = "\\ud800"


@pytest.mark.parametrize(
    ("path", "text", "param"),
    [
        ("entries", f'{{"cidr": "{SURROGATE}"}}', "cidr"),
        ("entries", f'{{"cidr": "192.0.2.1", "description": "a{SURROGATE}"}}', "description"),
        ("responses", f'{{"model": "{SURROGATE}", "input": "x"}}', "model"),
        ("responses", f'{{"model": "service-pro", "input": "{SURROGATE}"}}', "input"),
        (
            "responses",
            f'{{"model": "service-pro", "input": "x", "instructions": "{SURROGATE}"}}',
            "instructions",
        ),
        (
            "responses",
            f'{{"model": "service-pro", "input": "x", "metadata": {{"k": "{SURROGATE}"}}}}',
            "metadata.k",
        ),
        (
            "responses",
            f'{{"model": "service-pro", "input": "x", "previous_response_id": "{SURROGATE}"}}',
            "previous_response_id",
        ),
        (
            "responses",
            '{"model": "service-pro", "input": "x", "stream": true, "text": {"format": {"type": "json_schema", '
            f'"name": "n", "schema": {{"type": "object", "description": "{SURROGATE}"}}}}}}}}',
            "text.format.schema.description",
        ),
        (
            "responses",
            f'{{"model": "service-pro", "input": [{{"role": "user", "content": [{{"type": "input_text", '
            f'"text": "{SURROGATE}"}}]}}]}}',
            "input[0].content[0].text",
        ),
    ],
)
def test_lone_surrogates_are_a_400_naming_the_field(
    sandbox: Sandbox, path: str, text: str, param: str
) -> None:
    json.loads(text)  # the test's own body is valid JSON
    client = sandbox.admin() if path == "entries" else sandbox.api()
    with client:
        response = raw_post(
            client, f"{sandbox.org_list}/entries" if path == "entries" else "/responses", text
        )
    error = response.json()["error"]
    assert response.status_code == 400 and (error["param"], error["code"]) == (param, "invalid_unicode")


@pytest.mark.parametrize("depth", [65, 5_000, 200_000])
def test_deep_nesting_is_a_400(sandbox: Sandbox, depth: int) -> None:
    text = '{"model": "service-pro", "input": ' + "[" * depth + "]" * depth + "}"
    with sandbox.api() as client:
        response = raw_post(client, "/responses", text)
        assert response.status_code == 400 and "nested" in response.json()["error"]["message"]
        assert client.get("/models").status_code == 200


def test_error_messages_quote_a_short_prefix(sandbox: Sandbox) -> None:
    huge = "m" * 100_000
    with sandbox.api() as client:
        model = client.post("/responses", json={"model": huge[:256], "input": "x"}).json()["error"]["message"]
        unknown = client.post("/responses", json={"model": "service-pro", "input": "x", huge: 1}).json()[
            "error"
        ]
        missing = client.get(f"/responses/{huge[:5000]}").json()["error"]["message"]
    assert "m" * 60 + "…" in model and "m" * 61 not in model
    assert len(unknown["message"]) < 120 and len(unknown["param"]) < 250
    assert len(missing) < 200


def test_405_names_the_allowed_methods(sandbox: Sandbox) -> None:
    with sandbox.api() as client:
        response = client.put("/responses/resp_x")
    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) >= {"GET", "DELETE"}


def test_the_document_refuses_what_the_server_refuses(sandbox: Sandbox) -> None:
    with sandbox.api() as client:
        document = client.get(sandbox.url.removesuffix("/v1") + "/openapi.json").json()
    schemas = document["components"]["schemas"]
    resolver = {"components": {"schemas": schemas}}

    def valid(name: str, instance: dict[str, Any]) -> bool:
        schema = {**schemas[name], "components": resolver["components"]}
        valid: bool = jsonschema.Draft202012Validator(schema).is_valid(instance)  # jsonschema is untyped
        return valid

    assert not valid("EntryCreate", {"cidr": ""}) and not valid("EntryCreate", {"cidr": "1.2.3.4", "x": 1})
    assert not valid("EntryCreate", {"cidr": "1.2.3.4", "description": 0})
    assert valid("EntryCreate", {"cidr": "1.2.3.4", "description": None})
    assert not valid("CreateResponse", {"model": "", "input": "x"})
    assert not valid("CreateResponse", {"model": "service-pro", "input": "x", "colour": 1})
    assert valid("CreateResponse", {"model": "service-pro", "input": "x", "reasoning": {"effort": "high"}})
    assert not valid("ListPatch", {"enabled": "yes"})


LOOSE_CIDR = r"^[ \t]*([0-9]{1,4}(\.[0-9]{1,4}){3}|[0-9A-Fa-f.]*:[0-9A-Fa-f:.%a-z]*)(/[0-9]{1,3})?[ \t]*$"


def server_reads(text: str) -> bool:
    """Whether the server takes `text` as an entry (host bits set aside: no pattern can say those)."""
    try:
        parse_entry(text)
    except EntryError as error:
        return "host bits" in error.message
    return True


@settings(max_examples=400)
@given(text=st.one_of(st.from_regex(CIDR_SHAPE, fullmatch=True), st.from_regex(LOOSE_CIDR, fullmatch=True)))
def test_the_published_cidr_pattern_reads_entries_as_the_server_does(text: str) -> None:
    """Issue 38: the document admitted ":" and leading zeros, which the server refuses; now it admits an
    entry exactly when the server reads it, both ways."""
    assert bool(re.fullmatch(CIDR_SHAPE, text)) == server_reads(text), text


@pytest.mark.parametrize(
    ("cidr", "admitted"),
    [
        *[
            (":", False),
            ("010.0.0.1", False),
            ("1.2.3.4/032", False),
            ("::/129", False),
            ("fe80::1%eth0", False),
        ],
        *[
            ("198.51.100.7", True),
            ("::ffff:192.0.2.1", True),
            ("2001:db8::/32", True),
            (" 192.0.2.0/24", True),
        ],
    ],
)
def test_the_document_and_the_server_agree_on_an_entry(sandbox: Sandbox, cidr: str, admitted: bool) -> None:
    with sandbox.admin() as admin:
        schema = admin.get(sandbox.url.removesuffix("/v1") + "/openapi.json").json()["components"]["schemas"]
        response = admin.post(f"{sandbox.org_list}/entries", json={"cidr": cidr})
    published = jsonschema.Draft202012Validator(schema["EntryCreate"]).is_valid({"cidr": cidr})
    assert published is admitted and (response.status_code == 201) is admitted


def test_the_document_says_what_a_write_refuses(sandbox: Sandbox) -> None:
    """412 on every If-Match write, `expires_at` in the future, and no query parameter on an add."""
    with sandbox.admin() as admin:
        document = admin.get(sandbox.url.removesuffix("/v1") + "/openapi.json").json()
        past = admin.post(
            f"{sandbox.org_list}/entries", json={"cidr": "192.0.2.1", "expires_at": 1_000_000_000}
        )
    assert past.status_code == 400 and past.json()["error"]["code"] == "invalid_expires_at"
    schemas = document["components"]["schemas"]
    for name in ("EntryCreate", "EntryPatch"):
        assert "invalid_expires_at" in schemas[name]["properties"]["expires_at"]["description"]
    writes = [
        operation
        for path, item in document["paths"].items()
        if "/ip_allowlist" in path
        for method, operation in item.items()
        if method in ("post", "patch", "delete")
    ]
    assert len(writes) == 8 and all("412" in operation["responses"] for operation in writes)
    assert all(
        any(parameter["name"] == "If-Match" for parameter in operation["parameters"]) for operation in writes
    )
    post = document["paths"]["/v1/organizations/{org_id}/ip_allowlist/entries"]["post"]
    assert "unknown_parameter" in post["description"]
    assert not any(parameter["name"] == "force" for parameter in post["parameters"])


def test_input_items_after_and_unknown_ids(sandbox: Sandbox) -> None:
    turns = [{"role": "user", "content": f"line {number}"} for number in range(3)]
    with sandbox.api() as client:
        created = client.post("/responses", json={"model": "service-pro", "input": turns}).json()
        first = client.get(
            f"/responses/{created['id']}/input_items", params={"order": "asc", "limit": 1}
        ).json()
        rest = client.get(
            f"/responses/{created['id']}/input_items", params={"order": "asc", "after": first["last_id"]}
        ).json()
        bad = client.get(f"/responses/{created['id']}/input_items", params={"limit": 0})
        deleted = client.delete(f"/responses/{created['id']}")
        gone = client.delete(f"/responses/{created['id']}")
    assert first["has_more"] and [item["content"][0]["text"] for item in rest["data"]] == ["line 1", "line 2"]
    assert not rest["has_more"] and bad.status_code == 400 and bad.json()["error"]["param"] == "limit"
    assert deleted.json() == {"id": created["id"], "object": "response.deleted", "deleted": True}
    assert gone.status_code == 404


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"reasoning": {"effort": "extreme"}}, "reasoning.effort"),
        ({"tools": [{"type": "web_search", "search_context_size": "huge"}]}, "tools[0].search_context_size"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"truncation": "sometimes"}, "truncation"),
        ({"text": {"verbosity": "loud"}}, "text.verbosity"),
        ({"include": ["everything"]}, "include[0]"),
        ({"service_tier": "gold"}, "service_tier"),
        ({"stream_options": {"include_obfuscation": "yes"}}, "stream_options.include_obfuscation"),
        ({"input": [{"type": "function_call"}]}, "input[0].call_id"),
        ({"input": [{"type": "teleport"}]}, "input[0].type"),
        (
            {"input": [{"role": "user", "content": [{"type": "output_text", "text": "x"}]}]},
            "input[0].content[0].type",
        ),
    ],
)
def test_invalid_values_of_real_parameters_are_clear_400s(
    sandbox: Sandbox, body: dict[str, Any], param: str
) -> None:
    with sandbox.api() as client:
        response = client.post("/responses", json={"model": "service-pro", "input": "x", **body})
    error = response.json()["error"]
    assert response.status_code == 400 and error["param"] == param and error["code"] != "unknown_parameter"
    assert "~" not in error["message"]


def test_truncation_auto_drops_the_oldest_turns(sandbox: Sandbox) -> None:
    long = "word " * 70_000
    with sandbox.api() as client:
        first = client.post("/responses", json={"model": "service-pro", "input": long}).json()
        second = client.post(
            "/responses", json={"model": "service-pro", "input": long, "previous_response_id": first["id"]}
        )
        third = client.post(
            "/responses",
            json={
                "model": "service-pro",
                "input": long,
                "previous_response_id": first["id"],
                "truncation": "auto",
            },
        )
    assert second.status_code == 400 and second.json()["error"]["code"] == "context_length_exceeded"
    assert third.status_code == 200 and third.json()["truncation"] == "auto"
    assert third.json()["usage"]["input_tokens"] <= 128_000


def test_a_nan_temperature_is_named_as_no_number(sandbox: Sandbox) -> None:
    body = '{"model": "service-pro", "input": "x", "temperature": NaN}'
    with sandbox.api() as client:
        answer = client.post("/responses", content=body, headers={"content-type": "application/json"})
    error = answer.json()["error"]
    assert answer.status_code == 400 and error["param"] == "temperature"
    assert "NaN, which is not a number" in error["message"]
