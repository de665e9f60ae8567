"""The OpenAPI 3.1 document (served at /openapi.json), generated from the models that validate requests."""

from __future__ import annotations

from typing import Any, get_args

from app.sandbox.config import SandboxConfig
from app.sandbox.contract.admin import AuditType
from app.sandbox.contract.answers import components
from app.sandbox.contract.keys import key_paths
from app.sandbox.contract.prompts_openapi import prompt_paths, prompt_schemas
from app.sandbox.contract.responses import Includable
from app.sandbox.contract.usage_openapi import usage_paths


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(name: str, description: str = "ok") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _answers(ok: str, ok_model: str, *errors: int) -> dict[str, Any]:
    return {ok: _json(ok_model), **{str(code): _json("Error", "error") for code in errors}}


_ETAG = {"ETag": {"description": "the list's version, quoted", "schema": {"type": "string"}}}


def _etagged(answers: dict[str, Any]) -> dict[str, Any]:
    answers["200"]["headers"] = _ETAG
    return answers


def _versioned(ok: str, ok_model: str, *errors: int) -> dict[str, Any]:
    """The answers of a list read or change: the list's version in `ETag`, and 412 with the current list."""
    answers = _answers(ok, ok_model, *errors)
    answers[ok]["headers"] = _ETAG
    answers["412"] = _json("PreconditionFailed", "If-Match names an earlier version of the list")
    return answers


def _body(name: str) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": _ref(name)}}}


def _path(name: str) -> dict[str, Any]:
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string", "minLength": 1}}


_FORCE = {
    "name": "force",
    "in": "query",
    "description": "true: make the change even though it blocks the caller's own address (409 otherwise)",
    "schema": {"enum": ["true", "false"]},
}
_IF_MATCH = {"name": "If-Match", "in": "header", "schema": {"type": "string", "maxLength": 200}}
_ADMIN_ERRORS = (400, 401, 403, 404, 409, 413, 429)


def _allowlist_paths(prefix: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        f"{prefix}/ip_allowlist": {
            "parameters": params,
            "get": {"responses": _etagged(_answers("200", "Allowlist", 401, 403, 404, 429))},
            "patch": {
                "parameters": [_FORCE, _IF_MATCH],
                "requestBody": _body("ListPatch"),
                "responses": _versioned("200", "Allowlist", *_ADMIN_ERRORS),
            },
        },
        f"{prefix}/ip_allowlist/entries": {
            "parameters": params,
            "post": {
                # An add never blocks anyone, so it has no `force`: any query parameter is refused.
                "description": "Takes no query parameter: any (`force` too) is a 400 `unknown_parameter`.",
                "parameters": [_IF_MATCH],
                "requestBody": _body("EntryCreate"),
                "responses": _versioned("201", "Entry", *_ADMIN_ERRORS),
            },
        },
        f"{prefix}/ip_allowlist/entries/{{entry_id}}": {
            "parameters": [*params, _path("entry_id")],
            "delete": {
                "parameters": [_FORCE, _IF_MATCH],
                "responses": _versioned("200", "EntryDeleted", *_ADMIN_ERRORS),
            },
            "patch": {
                "parameters": [_FORCE, _IF_MATCH],
                "requestBody": _body("EntryPatch"),
                "responses": _versioned("200", "Entry", *_ADMIN_ERRORS),
            },
        },
    }


def _certificate_paths(org: dict[str, Any], project: dict[str, Any]) -> dict[str, Any]:
    """Mutual TLS: the organization's certificates, and their activation there or at one project."""
    base, at_project = "/v1/organizations/{org_id}", "/v1/organizations/{org_id}/projects/{project_id}"
    listing = [
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
        {"name": "after", "in": "query", "schema": {"type": "string", "minLength": 1, "maxLength": 64}},
        {"name": "order", "in": "query", "schema": {"enum": ["asc", "desc"]}},
    ]
    content = {"name": "include[]", "in": "query", "schema": {"enum": ["content"]}}
    read = {"parameters": listing, "responses": _answers("200", "CertificateList", 400, 401, 403, 404, 429)}
    toggle = {
        "requestBody": _body("CertificateToggle"),
        "responses": _answers("200", "CertificateList", *_ADMIN_ERRORS),
    }
    return {
        f"{base}/certificates": {
            "parameters": [org],
            "get": read,
            "post": {
                "requestBody": _body("CertificateUpload"),
                "responses": _answers("200", "Certificate", *_ADMIN_ERRORS),
            },
        },
        f"{base}/certificates/activate": {"parameters": [org], "post": toggle},
        f"{base}/certificates/deactivate": {"parameters": [org], "post": toggle},
        f"{base}/certificates/{{certificate_id}}": {
            "parameters": [org, _path("certificate_id")],
            "get": {
                "parameters": [content],
                "responses": _answers("200", "Certificate", 400, 401, 403, 404, 429),
            },
            "post": {
                "requestBody": _body("CertificateRename"),
                "responses": _answers("200", "Certificate", *_ADMIN_ERRORS),
            },
            "delete": {"responses": _answers("200", "CertificateDeleted", *_ADMIN_ERRORS)},
        },
        f"{at_project}/certificates": {"parameters": [org, project], "get": read},
        f"{at_project}/certificates/activate": {"parameters": [org, project], "post": toggle},
        f"{at_project}/certificates/deactivate": {"parameters": [org, project], "post": toggle},
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
                "requestBody": _body("CompactRequest"),
                "responses": _answers("200", "Compacted", 400, 401, 403, 404, 413, 429),
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
            "get": {"parameters": [_INCLUDE], "responses": _answers("200", "ItemList", *errors)},
            "delete": {"responses": _answers("200", "Conversation", 401, 403, 404, 429)},
        },
    }


def _audit_query() -> list[dict[str, Any]]:
    text = {"type": "string", "minLength": 1, "maxLength": 64}
    return [
        {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
        {"name": "after", "in": "query", "schema": {"type": "string", "pattern": "^audit_[0-9]{1,18}$"}},
        {"name": "type", "in": "query", "schema": {"enum": [kind.value for kind in AuditType]}},
        {"name": "project_id", "in": "query", "schema": text},
    ]


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
        "/v1/organizations/{org_id}/audit_log": {
            "parameters": [org],
            "get": {
                "parameters": _audit_query(),
                "responses": _answers("200", "AuditLog", 400, 401, 403, 429),
            },
        },
    }
    schemas = components()
    schemas["CreateResponse"]["properties"]["model"]["enum"] = config.models  # known only at run time
    # One conversation item answers as one entry of an item list: the same schema, not a second definition.
    item = paths["/v1/conversations/{conversation_id}/items/{item_id}"]["get"]["responses"]["200"]
    item["content"]["application/json"]["schema"] = schemas["ItemList"]["properties"]["data"]["items"]
    paths.update(_allowlist_paths("/v1/organizations/{org_id}", [org]))
    paths.update(_allowlist_paths("/v1/organizations/{org_id}/projects/{project_id}", [org, project]))
    paths.update(key_paths(org, project, _path))
    paths.update(_certificate_paths(org, project))
    paths.update(usage_paths(org, project, _path))
    paths.update(prompt_paths(org, _path))
    schemas.update(prompt_schemas())
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
