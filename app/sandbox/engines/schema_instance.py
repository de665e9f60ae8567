"""A deterministic JSON value that satisfies a JSON Schema, for the simulated model's structured outputs.

Written by hand: the libraries that generate instances (hypothesis-jsonschema) make random values
for testing, and the simulated model must answer the same way every time. The route validates the
result with `jsonschema` before it is sent, so a schema this cannot satisfy yields an honest failure.

Bounded: a schema can ask for more than any answer holds (`"minItems": 1000000000`, a `minLength` of
gigabytes, arrays of arrays). Every value costs its size against a budget of about a megabyte of JSON, and
past it the builder stops with InstanceTooLarge (the simulated model then answers `incomplete`, as a model
that ran out of output does), before it has built more than the budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MAX_DEPTH = 12
BUDGET = 1_000_000  # characters of JSON, about; each value costs at least one


class InstanceTooLarge(Exception):
    """The schema asks for a value larger than the budget."""


class _Budget:
    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self, cost: int) -> None:
        self.left -= cost
        if self.left < 0:
            raise InstanceTooLarge


def instance_for(
    schema: Any, prompt: str, root: Any = None, depth: int = 0, budget: _Budget | None = None
) -> Any:
    """A value that satisfies `schema`; raises InstanceTooLarge past the budget."""
    root = schema if root is None else root
    budget = _Budget(BUDGET) if budget is None else budget
    budget.spend(1)
    if depth > _MAX_DEPTH or not isinstance(schema, dict):
        return None
    if "$ref" in schema:
        return instance_for(_resolve(root, schema["$ref"]), prompt, root, depth + 1, budget)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for combinator in ("anyOf", "oneOf"):
        if schema.get(combinator):
            return instance_for(schema[combinator][0], prompt, root, depth + 1, budget)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged = _merge(merged, part)
        return instance_for(merged, prompt, root, depth + 1, budget)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
    builder: Callable[..., Any] = _BUILDERS.get(kind, _null)
    return builder(schema, prompt, root, depth, budget)


def _null(*_: Any) -> None:
    return None


def _object(schema: dict[str, Any], prompt: str, root: Any, depth: int, budget: _Budget) -> dict[str, Any]:
    properties = schema.get("properties", {})
    return {
        name: instance_for(properties[name], _label(name, prompt), root, depth + 1, budget)
        for name in properties
    }


def _array(schema: dict[str, Any], prompt: str, root: Any, depth: int, budget: _Budget) -> list[Any]:
    count = max(_whole(schema.get("minItems")), min(2, _whole(schema.get("maxItems"), 2)))
    budget.spend(count)  # a count past the budget stops here, before any item is built
    items = schema.get("items", {})
    return [instance_for(items, f"{prompt} {i + 1}", root, depth + 1, budget) for i in range(count)]


def _whole(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _string(schema: dict[str, Any], prompt: str, _root: Any, _depth: int, budget: _Budget) -> str:
    formats = {
        "date": "2026-01-01",
        "date-time": "2026-01-01T00:00:00Z",
        "email": "sandbox@example.com",
        "uri": "https://example.com/",
        "ipv4": "203.0.113.7",
        "ipv6": "2001:db8::7",
        "uuid": "00000000-0000-4000-8000-000000000000",
    }
    text: str = formats.get(schema.get("format", ""), prompt or "simulated")
    low = _whole(schema.get("minLength"))
    high = _whole(schema.get("maxLength"), 10**6)
    text = text[:high]
    budget.spend(max(low, len(text)))  # a minLength past the budget stops here, before the padding is made
    return text + "x" * max(0, low - len(text))


def _number(schema: dict[str, Any], *_: Any) -> float | int:
    low = schema.get(
        "minimum", schema.get("exclusiveMinimum", 0) + (1 if "exclusiveMinimum" in schema else 0)
    )
    high = schema.get(
        "maximum", schema.get("exclusiveMaximum", low + 43) - (1 if "exclusiveMaximum" in schema else 0)
    )
    value = min(max(42, low), high)
    return int(value) if schema.get("type") == "integer" else value


def _label(name: str, prompt: str) -> str:
    return f"{name.replace('_', ' ')} for: {prompt}"[:120] if prompt else name


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    merged = {**left, **right}
    if "properties" in left and "properties" in right:
        merged["properties"] = {**left["properties"], **right["properties"]}
    return merged


def _resolve(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return {}
    node = root
    for part in ref.lstrip("#/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    return node


_BUILDERS: dict[str, Callable[..., Any]] = {
    "object": _object,
    "array": _array,
    "string": _string,
    "number": _number,
    "integer": _number,
    "boolean": lambda *_: True,
    "null": lambda *_: None,
}
