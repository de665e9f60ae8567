"""The one JSON Schema check of the project, for the console and the sandbox alike (Qt-free).

`jsonschema` is imported on first use: the console does not need it for its first frame.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Mismatch:
    """Where a value fails its schema (a JSON pointer-like path, "(root)" for the whole) and why."""

    where: str
    message: str
    detail: str  # the library's whole description, which orders mismatches deterministically


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why `schema` is not a valid JSON Schema (for the draft it names, else the newest), or None."""
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as error:
        return str(error.message)
    return reference_problem(schema)


# Keywords that apply a subschema to the same value (no property or item is entered): a cycle through
# these alone never ends, as `{"$ref": "#"}` shows; a cycle through `properties` or `items` ends with the value.
IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
UNRESOLVED = object()


def resolve_pointer(root: Any, ref: str) -> Any:
    """The subschema `ref` ("#", "#/$defs/x", "#/allOf/0") names inside `root`, or UNRESOLVED."""
    from urllib.parse import unquote

    if ref[1:2] not in ("", "/"):  # "#name": a plain-name fragment, an `$anchor` somewhere in the schema
        named = [node for node in _all_nodes(root) if node.get("$anchor") == ref[1:]]
        return named[0] if named else UNRESOLVED
    node = root
    for part in unquote(ref[1:]).split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return UNRESOLVED
    return node


def reference_problem(schema: dict[str, Any]) -> str | None:
    """Why the schema's `$ref`s cannot be followed: one that points outside the schema or at nothing, or a
    loop of references that never reaches a property or an item (validation would recurse for ever).
    Hand-written: jsonschema finds both only while validating a value, as an exception deep in the call."""
    refs: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("#", schema)]
    while stack:  # every subschema, with its pointer
        where, node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                refs.append((where, ref))
            stack.extend(
                (f"{where}/{key}", value) for key, value in node.items() if key not in ("enum", "const")
            )
        elif isinstance(node, list):
            stack.extend((f"{where}/{index}", value) for index, value in enumerate(node))
    for where, ref in refs:
        if not ref.startswith("#"):
            return (
                f"'$ref' at {where} points outside the schema ({ref}); only '#/...' references are supported"
            )
        if resolve_pointer(schema, ref) is UNRESOLVED:
            return f"'$ref' at {where} points at nothing ({ref})"
    return _endless_loop(schema)


def _endless_loop(schema: dict[str, Any]) -> str | None:
    """A subschema that reaches itself through `$ref` and in-place keywords only."""

    def next_in_place(node: Any) -> list[Any]:
        if not isinstance(node, dict):
            return []
        found = []
        if isinstance(node.get("$ref"), str):
            found.append(resolve_pointer(schema, node["$ref"]))
        for key in IN_PLACE:
            value = node.get(key)
            found.extend(value if isinstance(value, list) else [value] if isinstance(value, dict) else [])
        return found

    done: set[int] = set()
    for start in _all_nodes(schema):
        path: set[int] = set()
        stack: list[tuple[Any, bool]] = [(start, False)]
        while stack:  # depth-first over in-place edges, `path` holding the nodes on the current way down
            node, leaving = stack.pop()
            if leaving:
                path.discard(id(node))
                done.add(id(node))
                continue
            if id(node) in path:
                return "'$ref' refers to itself without reaching a property or an item (it would never end)"
            if id(node) in done:
                continue
            path.add(id(node))
            stack.append((node, True))
            stack.extend((child, False) for child in next_in_place(node))
    return None


def _all_nodes(schema: Any) -> list[Any]:
    nodes, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            nodes.append(node)
            stack.extend(value for key, value in node.items() if key not in ("enum", "const"))
        elif isinstance(node, list):
            stack.extend(node)
    return nodes


@functools.lru_cache(maxsize=256)
def _validator(schema_text: str) -> Any:
    """A validator per schema, made once: making one (and its checks of the schema's keywords) cost more than
    validating a small value, and a reopened conversation checks the same function's arguments 200 times."""
    import jsonschema

    schema = json.loads(schema_text)
    return jsonschema.validators.validator_for(schema)(schema)


def mismatches(value: Any, schema: dict[str, Any]) -> list[Mismatch]:
    """Every way `value` fails `schema`, in the library's order; empty when it matches."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    return [
        Mismatch("/".join(str(part) for part in error.absolute_path) or "(root)", error.message, str(error))
        for error in validator.iter_errors(value)
    ]
