"""A JSON schema typed for structured outputs, checked: usable or not, and a sentence saying which."""

from __future__ import annotations

import json
from dataclasses import dataclass

from app.api.requests import JsonSchema
from app.common.jsonschema_check import schema_problem


@dataclass(frozen=True)
class SchemaCheck:
    """A JSON schema typed by the person: the schema when usable, and a sentence either way."""

    schema: JsonSchema | None
    message: str

    @property
    def ok(self) -> bool:
        return self.schema is not None


def check_schema(text: str) -> SchemaCheck:
    try:
        schema = json.loads(text)
    except ValueError as error:
        return SchemaCheck(None, f"✗ Not valid JSON: {error}.")
    if not isinstance(schema, dict):
        return SchemaCheck(None, "✗ A schema must be a JSON object.")
    problem = schema_problem(schema)
    if problem is not None:
        return SchemaCheck(None, f"✗ Not a valid JSON Schema: {problem.rstrip('.')}.")
    return SchemaCheck(schema, "✓ Valid JSON Schema")
