"""A JSON schema whose `$ref` cannot be followed is the client's mistake: a 400 naming text.format.schema,
streamed or not, and the keep-alive connection serves the next request."""

from __future__ import annotations

from typing import Any

import pytest

from app.common.jsonschema_check import schema_problem
from tests.conftest import Sandbox

BAD_SCHEMAS: dict[str, dict[str, Any]] = {
    "unresolvable": {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
    "recursive": {"$ref": "#"},
    "a loop through allOf": {
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a",
    },
    "outside": {"$ref": "https://example.com/schema.json"},
    "a missing anchor": {"$ref": "#nowhere"},
}


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("name", list(BAD_SCHEMAS))
def test_an_unfollowable_ref_is_a_400_and_the_connection_stays_usable(
    sandbox: Sandbox, name: str, stream: bool
) -> None:
    body = {
        "model": "service-pro",
        "input": "x",
        "stream": stream,
        "text": {"format": {"type": "json_schema", "name": "bad", "schema": BAD_SCHEMAS[name]}},
    }
    with sandbox.api() as client:
        refused = client.post("/responses", json=body)
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert error["param"] == "text.format.schema" and "$ref" in error["message"]
        again = client.post("/responses", json={"model": "service-pro", "input": "still there?"})
        assert again.status_code == 200


def test_a_recursive_tree_schema_is_fine(sandbox: Sandbox) -> None:
    tree = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["name"],
    }
    assert schema_problem(tree) is None
    body = {
        "model": "service-pro",
        "input": "a tree",
        "text": {"format": {"type": "json_schema", "name": "tree", "schema": tree}},
    }
    with sandbox.api() as client:
        assert client.post("/responses", json=body).status_code == 200
