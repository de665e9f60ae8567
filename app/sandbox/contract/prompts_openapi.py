"""The stored prompts' endpoints in the OpenAPI document (docs/contract.md, "Stored prompts"): the bodies of a
save from the models that validate them, the list's query, and the prompt as it is answered."""

from __future__ import annotations

from typing import Any

from app.sandbox.contract.prompts import PromptCreate, PromptVersionCreate

_REF = "#/components/schemas/{model}"
_READ_ERRORS = (400, 401, 403, 404, 429)
_SAVE_ERRORS = (400, 401, 403, 404, 413, 429)
# A save needs instructions or an input (a null one is none): the validator says so in a sentence, the
# document in a schema, so that a body it allows is a body the service takes.
_TEXT_GIVEN = {
    "anyOf": [
        {"required": ["instructions"], "properties": {"instructions": {"type": "string"}}},
        {"required": ["input"], "properties": {"input": {"not": {"type": "null"}}}},
    ]
}
_NULLABLE_TEXT = {"type": ["string", "null"]}
PROMPT = {
    "type": "object",
    "required": [
        "object",
        "id",
        "version",
        "name",
        "instructions",
        "input",
        "model",
        "options",
        "variables",
        "note",
        "created_at",
    ],
    "properties": {
        "object": {"const": "prompt"},
        "id": {"type": "string"},
        "version": {"type": "string", "pattern": "^[1-9][0-9]*$"},
        "name": {"type": "string"},
        "instructions": _NULLABLE_TEXT,
        "input": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}, {"type": "null"}]
        },
        "model": _NULLABLE_TEXT,
        "options": {"type": "object"},
        "variables": {"type": "array", "items": {"type": "string"}},
        "note": {"type": "string"},
        "created_at": {"type": "integer"},
    },
}
PROMPT_LIST = {
    "type": "object",
    "required": ["object", "data", "has_more"],
    "properties": {
        "object": {"const": "list"},
        "data": {"type": "array", "items": {"$ref": "#/components/schemas/Prompt"}},
        "first_id": _NULLABLE_TEXT,
        "last_id": _NULLABLE_TEXT,
        "has_more": {"type": "boolean"},
    },
}


def _answers(name: str, errors: tuple[int, ...]) -> dict[str, Any]:
    def json(schema: str, description: str) -> dict[str, Any]:
        content = {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}
        return {"description": description, "content": content}

    return {"200": json(name, "ok"), **{str(code): json("Error", "error") for code in errors}}


def prompt_schemas() -> dict[str, Any]:
    """The components these paths name: the two bodies, what they hold, and the prompt answered."""
    schemas: dict[str, Any] = {"Prompt": PROMPT, "PromptList": PROMPT_LIST}
    for model in (PromptCreate, PromptVersionCreate):
        schema = model.model_json_schema(mode="validation", ref_template=_REF)
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = {**schema, **_TEXT_GIVEN}
    return schemas


def prompt_paths(org: dict[str, Any], id_param: Any) -> dict[str, Any]:
    """The paths; `id_param(name)` makes a path parameter."""
    base, prompt = "/v1/organizations/{org_id}/prompts", id_param("prompt_id")
    search = {"name": "search", "in": "query", "schema": {"type": "string", "maxLength": 256}}

    def body(name: str) -> dict[str, Any]:
        schema = {"$ref": f"#/components/schemas/{name}"}
        return {"required": True, "content": {"application/json": {"schema": schema}}}

    return {
        base: {
            "parameters": [org],
            "get": {"parameters": [search], "responses": _answers("PromptList", _READ_ERRORS)},
            "post": {"requestBody": body("PromptCreate"), "responses": _answers("Prompt", _SAVE_ERRORS)},
        },
        f"{base}/{{prompt_id}}": {
            "parameters": [org, prompt],
            "get": {"responses": _answers("Prompt", _READ_ERRORS)},
        },
        f"{base}/{{prompt_id}}/versions": {
            "parameters": [org, prompt],
            "get": {"responses": _answers("PromptList", _READ_ERRORS)},
            "post": {
                "requestBody": body("PromptVersionCreate"),
                "responses": _answers("Prompt", _SAVE_ERRORS),
            },
        },
        f"{base}/{{prompt_id}}/versions/{{version}}": {
            "parameters": [org, prompt, id_param("version")],
            "get": {"responses": _answers("Prompt", _READ_ERRORS)},
        },
    }
