"""A schema that asks for more than any answer holds ends the simulated answer `incomplete` at once: the
instance builder is bounded (items, lengths, nesting, total size) and never builds past its budget."""

from __future__ import annotations

import time
from typing import Any

import pytest

from app.sandbox.engines.schema_instance import BUDGET, InstanceTooLarge, instance_for
from tests.conftest import Sandbox

HUGE_ARRAY = {"type": "array", "items": {"type": "string"}, "minItems": 1_000_000_000}
HUGE_STRING = {"type": "string", "minLength": 10**12}
NESTED = {
    "type": "array",
    "minItems": 1000,
    "items": {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {}}},
}


@pytest.mark.parametrize("schema", [HUGE_ARRAY, HUGE_STRING, NESTED], ids=["items", "length", "nested"])
def test_the_builder_stops_at_its_budget(schema: dict[str, Any]) -> None:
    started = time.perf_counter()
    with pytest.raises(InstanceTooLarge):
        instance_for({"type": "object", "properties": {"value": schema}}, "x")
    assert time.perf_counter() - started < 2


def test_an_instance_within_the_budget_is_built() -> None:
    value = instance_for({"type": "array", "items": {"type": "integer"}, "minItems": BUDGET // 4}, "x")
    assert len(value) == BUDGET // 4


def _wrapped(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"value": schema},
        "required": ["value"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("schema", [HUGE_ARRAY, HUGE_STRING, NESTED], ids=["items", "length", "nested"])
def test_a_hostile_format_or_function_ends_incomplete(sandbox: Sandbox, schema: dict[str, Any]) -> None:
    text_format = {"type": "json_schema", "name": "hostile", "schema": _wrapped(schema), "strict": True}
    tool = {"type": "function", "name": "get_weather", "parameters": _wrapped(schema)}
    with sandbox.api() as client:
        formatted = client.post(
            "/responses", json={"model": "service-pro", "input": "x", "text": {"format": text_format}}
        )
        called = client.post(
            "/responses", json={"model": "service-pro", "input": "The weather?", "tools": [tool]}
        )
        health = client.get(sandbox.url.removesuffix("/v1") + "/healthz")
    for answer in (formatted, called):
        assert answer.status_code == 200 and answer.json()["status"] == "incomplete", answer.text
    assert health.status_code == 200
