"""The OpenAPI 3.1 document of the sandbox's API (served at /openapi.json)."""

from __future__ import annotations

from typing import Any

from .config import SandboxConfig

_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["message", "type", "param", "code"],
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "code": {"type": ["string", "null"]},
            },
        }
    },
}
_ENTRY = {
    "type": "object",
    "required": ["object", "id", "cidr", "description", "created_at"],
    "properties": {
        "object": {"const": "ip_allowlist.entry"},
        "id": {"type": "string"},
        "cidr": {"type": "string"},
        "description": {"type": "string"},
        "created_at": {"type": "integer"},
    },
}
_LIST = {
    "type": "object",
    "required": ["object", "scope", "enabled", "entries", "source_ip"],
    "properties": {
        "object": {"const": "ip_allowlist"},
        "scope": {"enum": ["organization", "project"]},
        "owner_id": {"type": "string"},
        "enabled": {"type": "boolean"},
        "entries": {"type": "array", "items": {"$ref": "#/components/schemas/Entry"}},
        "source_ip": {"type": ["string", "null"]},
    },
}
_RESPONSE = {
    "type": "object",
    "required": ["id", "object", "created_at", "status", "model", "output"],
    "properties": {
        "id": {"type": "string"},
        "object": {"const": "response"},
        "created_at": {"type": "integer"},
        "status": {"enum": ["completed", "incomplete", "failed", "in_progress"]},
        "model": {"type": "string"},
        "output": {"type": "array", "items": {"type": "object", "required": ["type", "id"]}},
        "previous_response_id": {"type": ["string", "null"]},
        "usage": {
            "type": ["object", "null"],
            "properties": {
                "input_tokens": {"type": "integer"},
                "output_tokens": {"type": "integer"},
                "total_tokens": {"type": "integer"},
            },
        },
    },
}
_PART = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["input_text", "input_image", "output_text"]},
        "text": {"type": "string"},
        "image_url": {"type": "string"},
        "detail": {"enum": ["auto", "low", "high"]},
    },
}
_CREATE = {
    "type": "object",
    "required": ["model", "input"],
    "additionalProperties": False,
    "properties": {
        "model": {"type": "string"},
        "input": {
            "oneOf": [
                {"type": "string"},
                {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["role", "content"],
                        "properties": {
                            "role": {"enum": ["user", "assistant", "system", "developer"]},
                            "content": {"oneOf": [{"type": "string"}, {"type": "array", "items": _PART}]},
                        },
                    },
                },
            ]
        },
        "instructions": {"type": ["string", "null"]},
        "previous_response_id": {"type": ["string", "null"]},
        "tools": {
            "type": "array",
            "items": {"type": "object", "properties": {"type": {"const": "web_search_preview"}}},
        },
        "text": {"type": "object"},
        "stream": {"type": "boolean"},
        "max_output_tokens": {"type": ["integer", "null"], "minimum": 16},
        "temperature": {"type": ["number", "null"], "minimum": 0, "maximum": 2},
        "top_p": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
        "store": {"type": "boolean"},
        "metadata": {"type": ["object", "null"], "additionalProperties": {"type": "string"}},
    },
}


def _json(schema_ref: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}}}}


def _errors(*codes: int) -> dict[str, Any]:
    return {str(code): {"description": "error", **_json("Error")} for code in codes}


def _allowlist_paths(prefix: str, params: list[dict[str, Any]]) -> dict[str, Any]:
    common = _errors(400, 401, 403, 404, 409, 429)
    return {
        f"{prefix}/ip_allowlist": {
            "parameters": params,
            "get": {"responses": {"200": {"description": "the list", **_json("Allowlist")}, **common}},
            "patch": {
                "parameters": [{"name": "force", "in": "query", "schema": {"type": "boolean"}}],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["enabled"],
                                "additionalProperties": False,
                                "properties": {"enabled": {"type": "boolean"}},
                            }
                        }
                    },
                },
                "responses": {"200": {"description": "the list", **_json("Allowlist")}, **common},
            },
        },
        f"{prefix}/ip_allowlist/entries": {
            "parameters": params,
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["cidr"],
                                "additionalProperties": False,
                                "properties": {
                                    "cidr": {"type": "string"},
                                    "description": {"type": "string", "maxLength": 200},
                                },
                            }
                        }
                    },
                },
                "responses": {"201": {"description": "the entry", **_json("Entry")}, **common},
            },
        },
        f"{prefix}/ip_allowlist/entries/{{entry_id}}": {
            "parameters": [
                *params,
                {"name": "entry_id", "in": "path", "required": True, "schema": {"type": "string"}},
            ],
            "delete": {
                "parameters": [{"name": "force", "in": "query", "schema": {"type": "boolean"}}],
                "responses": {
                    "200": {
                        "description": "deleted",
                        "content": {
                            "application/json": {
                                "schema": {"type": "object", "required": ["object", "id", "deleted"]}
                            }
                        },
                    },
                    **common,
                },
            },
        },
    }


def openapi_document(config: SandboxConfig) -> dict[str, Any]:
    org = {"name": "org_id", "in": "path", "required": True, "schema": {"type": "string"}}
    project = {"name": "project_id", "in": "path", "required": True, "schema": {"type": "string"}}
    paths: dict[str, Any] = {
        "/healthz": {"get": {"security": [], "responses": {"200": {"description": "alive"}}}},
        "/v1/models": {"get": {"responses": {"200": {"description": "models"}, **_errors(401, 403, 429)}}},
        "/v1/responses": {
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/CreateResponse"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "a response, or an event stream",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Response"}},
                            "text/event-stream": {"schema": {"type": "string"}},
                        },
                    },
                    **_errors(400, 401, 403, 413, 429),
                },
            }
        },
        "/v1/responses/{response_id}": {
            "parameters": [
                {"name": "response_id", "in": "path", "required": True, "schema": {"type": "string"}}
            ],
            "get": {
                "responses": {
                    "200": {"description": "a stored response", **_json("Response")},
                    **_errors(401, 403, 404, 429),
                }
            },
        },
        "/v1/organizations/{org_id}/projects": {
            "parameters": [org],
            "get": {"responses": {"200": {"description": "projects"}, **_errors(401, 403, 429)}},
        },
    }
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
            "schemas": {
                "Error": _ERROR,
                "Entry": _ENTRY,
                "Allowlist": _LIST,
                "Response": _RESPONSE,
                "CreateResponse": _CREATE,
            },
        },
        "security": [{"bearer": []}],
        "paths": paths,
    }
