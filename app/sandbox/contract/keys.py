"""The contract of the key endpoints of the Admin API: their bodies, their queries, and the objects they
answer with (the hosted Admin API's shapes; docs/contract.md, "Keys")."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.sandbox.contract.responses import Strict

MAX_NAME = 100
EndpointGroup = Literal["models", "responses", "conversations", "organizations"]
Permissions = Literal["all", "read_only"] | Annotated[list[EndpointGroup], Field(min_length=1, max_length=4)]


class AdminKeyCreate(Strict):
    """The body of `POST /v1/organizations/{org}/admin_api_keys`."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    permissions: Permissions = "all"


class ServiceAccountCreate(Strict):
    """The body of `POST .../projects/{project}/service_accounts`: its key gets `permissions`."""

    name: str = Field(min_length=1, max_length=MAX_NAME)
    permissions: Permissions = "all"


class PageQuery(BaseModel):
    """`?limit=&after=` of the key and service-account lists (oldest first, as the hosted lists)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limit: int = Field(default=20, ge=1, le=100)
    after: str | None = Field(default=None, min_length=1, max_length=64)


def page(items: list[dict[str, Any]], query: PageQuery) -> dict[str, Any]:
    """One page of a list, after the item whose id is `query.after` (an unknown id: from the start)."""
    start = next((at + 1 for at, item in enumerate(items) if item["id"] == query.after), 0)
    data = items[start : start + query.limit]
    return {
        "object": "list",
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
        "has_more": start + query.limit < len(items),
    }


def key_json(row: dict[str, Any]) -> dict[str, Any]:
    """A key as the lists show it: never its value, its hash nor anything made from them but its id."""
    admin = row["kind"] == "admin"
    owner = row["owner"] or {}
    if not admin and owner.get("type") == "user" and "user" not in owner:
        owner = {"type": "user", "user": owner}  # a project key names its owner one level down
    permissions = row["permissions"]
    return {
        "object": "organization.admin_api_key" if admin else "organization.project.api_key",
        "id": row["id"],
        "name": row["name"],
        "redacted_value": row["redacted_value"],
        "created_at": row["created_at"],
        "last_used_at": row["last_used_at"],
        "owner": owner,
        "permissions": permissions if isinstance(permissions, str) else list(permissions),
        "request_count": row["request_count"],
        **({} if admin else {"project_id": row["project_id"]}),
    }


_ERRORS = (400, 401, 403, 404, 429)
_PAGE = [
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
    {"name": "after", "in": "query", "schema": {"type": "string", "minLength": 1, "maxLength": 64}},
]


def _answers(ok: str) -> dict[str, Any]:
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    answer = {"content": {"application/json": {"schema": {"type": "object"}}}}
    return {
        ok: {"description": "ok", **answer},
        **{str(code): {"description": "error", **error} for code in _ERRORS},
    }


def _body(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema(mode="validation")
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def key_paths(org: dict[str, Any], project: dict[str, Any], id_param: Any) -> dict[str, Any]:
    """The key endpoints in the OpenAPI document; `id_param(name)` makes a path parameter."""
    base, in_project = "/v1/organizations/{org_id}", "/v1/organizations/{org_id}/projects/{project_id}"
    key, account = id_param("key_id"), id_param("account_id")
    read = {"get": {"responses": _answers("200")}}
    removable = {**read, "delete": {"responses": _answers("200")}}
    return {
        f"{base}/admin_api_keys": {
            "parameters": [org],
            "get": {"parameters": _PAGE, "responses": _answers("200")},
            "post": {"requestBody": _body(AdminKeyCreate), "responses": _answers("201")},
        },
        f"{base}/admin_api_keys/{{key_id}}": {"parameters": [org, key], **removable},
        f"{in_project}/api_keys": {
            "parameters": [org, project],
            "get": {"parameters": _PAGE, "responses": _answers("200")},
        },
        f"{in_project}/api_keys/{{key_id}}": {"parameters": [org, project, key], **removable},
        f"{in_project}/service_accounts": {
            "parameters": [org, project],
            "get": {"parameters": _PAGE, "responses": _answers("200")},
            "post": {"requestBody": _body(ServiceAccountCreate), "responses": _answers("201")},
        },
        f"{in_project}/service_accounts/{{account_id}}": {"parameters": [org, project, account], **removable},
    }
