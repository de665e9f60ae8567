"""The OpenAPI 3.1 document (served at /openapi.json), generated from the models that validate requests."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import models_json_schema

from .config import SandboxConfig
from .contract import CreateResponse, EntryCreate, Includable, ListPatch
from .contract_state import ConversationCreate, ConversationUpdate, InputTokensRequest, ItemsAdd


class Answer(BaseModel):
    """Answers may carry more than the document names (as the hosted service's do)."""

    model_config = ConfigDict(extra="allow")


class ErrorDetail(Answer):
    message: str
    type: str
    param: str | None
    code: str | None


class Error(Answer):
    error: ErrorDetail


class Entry(Answer):
    object: Literal["ip_allowlist.entry"]
    id: str
    cidr: str
    description: str
    created_at: int


class Allowlist(Answer):
    object: Literal["ip_allowlist"]
    scope: Literal["organization", "project"]
    owner_id: str
    enabled: bool
    entries: list[Entry]
    source_ip: str | None


class EntryDeleted(Answer):
    object: Literal["ip_allowlist.entry.deleted"]
    id: str
    deleted: Literal[True]


class Usage(Answer):
    input_tokens: int
    output_tokens: int
    total_tokens: int


class OutputItem(Answer):
    type: str
    id: str


class ResponseObject(Answer):
    id: str
    object: Literal["response"]
    created_at: int
    status: Literal["completed", "incomplete", "failed", "in_progress", "queued", "cancelled"]
    model: str
    output: list[OutputItem]
    previous_response_id: str | None = None
    usage: Usage | None = None


class ResponseDeleted(Answer):
    id: str
    object: Literal["response.deleted"]
    deleted: Literal[True]


class ItemList(Answer):
    object: Literal["list"]
    data: list[OutputItem]
    first_id: str
    last_id: str
    has_more: bool


class Conversation(Answer):
    id: str
    object: Literal["conversation"]
    created_at: int
    metadata: dict[str, str]


class ConversationDeleted(Answer):
    id: str
    object: Literal["conversation.deleted"]
    deleted: Literal[True]


class InputTokens(Answer):
    object: Literal["response.input_tokens"]
    input_tokens: int


class Listing(Answer):
    object: Literal["list"]
    data: list[dict[str, Any]]


_MODELS: list[type[BaseModel]] = [
    CreateResponse,
    EntryCreate,
    ListPatch,
    Error,
    Entry,
    Allowlist,
    EntryDeleted,
    ResponseObject,
    ResponseDeleted,
    ItemList,
    Listing,
    ConversationCreate,
    ConversationUpdate,
    ItemsAdd,
    InputTokensRequest,
    Conversation,
    ConversationDeleted,
    InputTokens,
]


def components() -> dict[str, Any]:
    """Every model's JSON Schema under components/schemas, request models in their validation mode."""
    _, schema = models_json_schema(
        [(model, "validation") for model in _MODELS], ref_template="#/components/schemas/{model}"
    )
    return dict(schema["$defs"])


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str = "ok") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _answers(ok: str, ok_model: str, *errors: int) -> dict[str, Any]:
    return {ok: _json(ok_model), **{str(code): _json("Error", "error") for code in errors}}


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def _path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}


_FORCE = {"name": "force", "in": "query", "schema": {"enum": ["true", "false"]}}
_ADMIN_ERRORS = (400, 401, 403, 404, 409, 413, 429)


def _allowlist_paths(prefix: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        f"{prefix}/ip_allowlist": {
            "parameters": params,
            "get": {"responses": _answers("200", "Allowlist", 401, 403, 404, 429)},
            "patch": {
                "parameters": [_FORCE],
                "requestBody": _body("ListPatch"),
                "responses": _answers("200", "Allowlist", *_ADMIN_ERRORS),
            },
        },
        f"{prefix}/ip_allowlist/entries": {
            "parameters": params,
            "post": {
                "requestBody": _body("EntryCreate"),
                "responses": _answers("201", "Entry", *_ADMIN_ERRORS),
            },
        },
        f"{prefix}/ip_allowlist/entries/{{entry_id}}": {
            "parameters": [*params, _path("entry_id")],
            "delete": {"parameters": [_FORCE], "responses": _answers("200", "EntryDeleted", *_ADMIN_ERRORS)},
        },
    }


def _streamed(name: str, description: str) -> dict[str, Any]:
    """A JSON answer that is an event stream instead when the request asks for one."""
    answer = _json(name, description)
    fields = {"event": {"type": "string"}, "data": {"type": "string", "contentMediaType": "application/json"}}
    event = {"type": "object", "required": ["event", "data"], "properties": fields}
    answer["content"]["text/event-stream"] = {"schema": event}
    return answer


_INCLUDE = {
    "name": "include[]",
    "in": "query",
    "style": "form",
    "explode": True,
    "schema": {"type": "array", "items": {"enum": list(get_args(Includable))}},
}


def _response_paths() -> dict[str, Any]:
    created = _streamed("ResponseObject", "a response, or an event stream")
    items_query = [
        {"name": "after", "in": "query", "schema": {"type": "string", "minLength": 1}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
        {"name": "order", "in": "query", "schema": {"enum": ["asc", "desc"]}},
        {"name": "include[]", "in": "query", "schema": {"type": "string"}},
    ]
    retrieve_query = [
        {"name": "stream", "in": "query", "schema": {"enum": ["true", "false"]}},
        {"name": "starting_after", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "include_obfuscation", "in": "query", "schema": {"enum": ["true", "false"]}},
        _INCLUDE,
    ]
    one = [_path("response_id")]
    return {
        "/v1/responses": {
            "post": {
                "requestBody": _body("CreateResponse"),
                "responses": {"200": created, **_answers("400", "Error", 401, 403, 404, 413, 429)},
            }
        },
        "/v1/responses/input_tokens": {
            "post": {
                "requestBody": _body("InputTokensRequest"),
                "responses": _answers("200", "InputTokens", 400, 401, 403, 404, 413, 429),
            }
        },
        "/v1/responses/compact": {
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                },
                "responses": _answers("400", "Error", 401, 403, 413, 429),
            }
        },
        "/v1/responses/{response_id}": {
            "parameters": one,
            "get": {
                "parameters": retrieve_query,
                "responses": {
                    "200": _streamed("ResponseObject", "the response, or a background run's events"),
                    **_answers("400", "Error", 401, 403, 404, 429),
                },
            },
            "delete": {"responses": _answers("200", "ResponseDeleted", 401, 403, 404, 429)},
        },
        "/v1/responses/{response_id}/cancel": {
            "parameters": one,
            "post": {"responses": _answers("200", "ResponseObject", 400, 401, 403, 404, 429)},
        },
        "/v1/responses/{response_id}/input_items": {
            "parameters": one,
            "get": {
                "parameters": items_query,
                "responses": _answers("200", "ItemList", 400, 401, 403, 404, 429),
            },
        },
    }


def _conversation_paths() -> dict[str, Any]:
    one = [_path("conversation_id")]
    errors = (400, 401, 403, 404, 413, 429)
    items_query = [
        {"name": "after", "in": "query", "schema": {"type": "string", "minLength": 1}},
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
        {"name": "order", "in": "query", "schema": {"enum": ["asc", "desc"]}},
        _INCLUDE,
    ]
    return {
        "/v1/conversations": {
            "post": {
                "requestBody": _body("ConversationCreate"),
                "responses": _answers("200", "Conversation", 400, 401, 403, 413, 429),
            }
        },
        "/v1/conversations/{conversation_id}": {
            "parameters": one,
            "get": {"responses": _answers("200", "Conversation", 401, 403, 404, 429)},
            "post": {
                "requestBody": _body("ConversationUpdate"),
                "responses": _answers("200", "Conversation", *errors),
            },
            "delete": {"responses": _answers("200", "ConversationDeleted", 401, 403, 404, 429)},
        },
        "/v1/conversations/{conversation_id}/items": {
            "parameters": one,
            "get": {"parameters": items_query, "responses": _answers("200", "ItemList", *errors)},
            "post": {
                "parameters": [_INCLUDE],
                "requestBody": _body("ItemsAdd"),
                "responses": _answers("200", "ItemList", *errors),
            },
        },
        "/v1/conversations/{conversation_id}/items/{item_id}": {
            "parameters": [*one, _path("item_id")],
            "get": {"parameters": [_INCLUDE], "responses": _answers("200", "OutputItem", *errors)},
            "delete": {"responses": _answers("200", "Conversation", 401, 403, 404, 429)},
        },
    }


def openapi_document(config: SandboxConfig) -> dict[str, Any]:
    org, project = _path("org_id"), _path("project_id")
    paths: dict[str, Any] = {
        "/healthz": {"get": {"security": [], "responses": {"200": {"description": "alive"}}}},
        "/v1/models": {"get": {"responses": _answers("200", "Listing", 401, 403, 429)}},
        **_response_paths(),
        **_conversation_paths(),
        "/v1/organizations/{org_id}/projects": {
            "parameters": [org],
            "get": {"responses": _answers("200", "Listing", 401, 403, 429)},
        },
    }
    schemas = components()
    schemas["CreateResponse"]["properties"]["model"]["enum"] = config.models  # known only at run time
    paths.update(_allowlist_paths("/v1/organizations/{org_id}", [org]))
    paths.update(_allowlist_paths("/v1/organizations/{org_id}/projects/{project_id}", [org, project]))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Service sandbox",
            "version": "1.0.0",
            "description": f"Models: {', '.join(config.models)}",
        },
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": schemas,
        },
        "security": [{"bearer": []}],
        "paths": paths,
    }
