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
    return None


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
