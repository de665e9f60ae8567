"""Hostile bodies to every route: always a 4xx JSON error, never a 5xx, and the keep-alive connection stays open."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Sandbox

SURROGATES = st.sampled_from(["\ud800", "a\udfffb", "\udbff\udc00x\ud800"])
TEXT = st.one_of(st.text(max_size=20), SURROGATES, st.just("x" * 300_000))
LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), TEXT)
JSON = st.recursive(
    LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4), max_leaves=12
)
FIELDS = [
    "model",
    "input",
    "instructions",
    "previous_response_id",
    "metadata",
    "text",
    "tools",
    "reasoning",
    "include",
    "tool_choice",
    "stream",
    "cidr",
    "description",
    "enabled",
    "add",
    "update",
    "remove",
]


def _valid(route: str) -> dict[str, Any]:
    if route == "responses":
        return {"model": "service-pro", "input": "hello", "stream": True}
    if route == "entries":
        return {"cidr": "192.0.2.1", "description": "office"}
    if route == "batch":
        return {"add": [{"cidr": "192.0.2.1", "description": "office"}], "remove": []}
    return {"enabled": False}


@st.composite
def bodies(draw: st.DrawFn, route: str) -> bytes:
    """A valid body with one field broken (or a raw hostile document): surrogates, depth, types, size."""
    kind = draw(st.sampled_from(["field", "deep", "raw", "schema"]))
    body = _valid(route)
    if kind == "deep":
        depth = draw(st.sampled_from([65, 1_000, 100_000]))
        field = draw(st.sampled_from(FIELDS))
        return (json.dumps(body)[:-1] + f', "{field}": ' + "[" * depth + "]" * depth + "}").encode()
    if kind == "raw":
        return draw(st.sampled_from([b"", b"{", b"[]", b"null", b'"\\ud800"', b"\xff\xfe", b'{"a":1,"a":']))
    if kind == "schema":
        schema = {"type": "object", "properties": {draw(TEXT): draw(JSON)}}
        body["text"] = {"format": {"type": "json_schema", "name": "x", "schema": schema}}
    else:
        body[draw(st.sampled_from(FIELDS))] = draw(JSON)
    return json.dumps(body).encode()  # ensure_ascii: lone surrogates travel as \ud800 escapes


def _routes(sandbox: Sandbox) -> dict[str, tuple[str, str, str]]:
    return {
        "responses": ("POST", "/responses", sandbox.creds.api_key),
        "entries": ("POST", f"{sandbox.org_list}/entries", sandbox.creds.admin_key),
        "patch": ("PATCH", sandbox.project_list, sandbox.creds.admin_key),
        "batch": ("POST", f"{sandbox.project_list}/batch", sandbox.creds.admin_key),
    }


@pytest.fixture
def shared(sandbox_factory: Any) -> Sandbox:
    """One sandbox for all the examples of a test, with no rate limit to get in the way."""
    sandbox: Sandbox = sandbox_factory(rate_limit_per_minute=10**9)
    return sandbox


def _assert_clean_4xx(response: httpx.Response, body: bytes) -> None:
    assert 400 <= response.status_code < 500 or response.status_code in (200, 201), (
        response.status_code,
        response.text[:300],
    )
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["message"] and error["type"]
        assert len(error["message"]) < 600, "an error message quotes at most a short prefix of the input"
    assert response.headers.get("connection") != "close"


@pytest.mark.parametrize("route", ["responses", "entries", "patch", "batch"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_hostile_bodies_get_4xx_and_keep_the_connection(
    shared: Sandbox, route: str, data: st.DataObject
) -> None:
    method, path, key = _routes(shared)[route]
    body = data.draw(bodies(route))
    headers = {"authorization": f"Bearer {key}", "content-type": "application/json"}
    with httpx.Client(base_url=shared.url, headers=headers, timeout=30) as client:
        response = client.request(method, path, content=body)
        _assert_clean_4xx(response, body)
        response.read()
        again = client.get("/models", headers={"authorization": f"Bearer {shared.creds.api_key}"})
        assert again.status_code == 200
        assert again.extensions["network_stream"] is response.extensions["network_stream"], (
            "connection was dropped"
        )


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/responses/%ED%A0%80"),
        ("DELETE", "/responses/\ud800".encode("utf-8", "surrogatepass").decode("latin-1")),
        ("GET", "/responses/%ff/input_items?limit=0"),
        ("GET", "/responses/resp_x/input_items?limit=abc&order=sideways"),
        ("PATCH", "/organizations/%ED%A0%80/ip_allowlist?force=%ED%A0%80"),
        ("DELETE", "/organizations/org/ip_allowlist/entries/%00?force=null"),
        ("GET", "/organizations/%ED%A0%80/ip_allowlist/refused?since=-1&limit=0"),
        ("GET", "/organizations/org/ip_allowlist/sources?since=%ff&since=2"),
        ("POST", "/organizations/org/projects/%00/ip_allowlist/batch?force=yes"),
    ],
)
def test_hostile_paths_and_queries_get_4xx(sandbox: Sandbox, method: str, path: str) -> None:
    key = sandbox.creds.admin_key if "organizations" in path else sandbox.creds.api_key
    with sandbox.client(key) as client:
        response = client.request(method, path, content=b'{"enabled": false}')
        assert 400 <= response.status_code < 500 and response.json()["error"]["message"]
        assert (
            client.get("/models", headers={"authorization": f"Bearer {sandbox.creds.api_key}"}).status_code
            == 200
        )
