"""The usage, costs, rate-limit and budget endpoints in the OpenAPI document (docs/contract.md, "Usage and
costs"): their query strings and bodies, so schemathesis sends them what a client could."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from app.sandbox.contract.budgets import BudgetUpdate
from app.sandbox.contract.rate_limits import RateLimitUpdate
from app.sandbox.contract.usage import FILTER_MAX_CHARS, FILTERS, PAGE_MAX_CHARS

_ERRORS = (400, 401, 403, 404, 429)
_WINDOW = [
    {"name": "start_time", "in": "query", "required": True, "schema": {"type": "integer", "minimum": 0}},
    {"name": "end_time", "in": "query", "schema": {"type": "integer", "minimum": 1}},
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1}},
    {"name": "page", "in": "query", "schema": {"type": "string", "maxLength": PAGE_MAX_CHARS}},
]


def _list(name: str, values: list[str] | None = None) -> dict[str, Any]:
    item = {"enum": values} if values else {"type": "string", "maxLength": FILTER_MAX_CHARS}
    return {"name": name, "in": "query", "schema": {"type": "array", "items": item}, "explode": True}


def _answers(ok: str = "200") -> dict[str, Any]:
    error = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    answer = {"content": {"application/json": {"schema": {"type": "object"}}}}
    return {
        ok: {"description": "ok", **answer},
        **{str(code): {"description": "error", **error} for code in _ERRORS},
    }


def _body(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema(mode="validation")
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def usage_paths(org: dict[str, Any], project: dict[str, Any], id_param: Any) -> dict[str, Any]:
    """The paths; `id_param(name)` makes a path parameter."""
    base, in_project = "/v1/organizations/{org_id}", "/v1/organizations/{org_id}/projects/{project_id}"
    width = {"name": "bucket_width", "in": "query", "schema": {"enum": ["1m", "1h", "1d"]}}
    usage_query = [*_WINDOW, width, _list("group_by", ["project_id", "api_key_id", "model"])]
    usage_query += [_list(name) for name in FILTERS]
    cost_query = [
        *_WINDOW,
        {**width, "schema": {"enum": ["1d"]}},
        _list("group_by", ["project_id", "line_item"]),
    ]
    cost_query.append(_list("project_ids"))
    budget = {"post": {"requestBody": _body(BudgetUpdate), "responses": _answers()}}
    return {
        f"{base}/usage/completions": {
            "parameters": [org],
            "get": {"parameters": usage_query, "responses": _answers()},
        },
        f"{base}/usage/refused": {
            "parameters": [org],
            "get": {"parameters": usage_query, "responses": _answers()},
        },
        f"{base}/costs": {"parameters": [org], "get": {"parameters": cost_query, "responses": _answers()}},
        f"{base}/prices": {"parameters": [org], "get": {"responses": _answers()}},
        f"{in_project}/rate_limits": {"parameters": [org, project], "get": {"responses": _answers()}},
        f"{in_project}/rate_limits/{{rate_limit_id}}": {
            "parameters": [org, project, id_param("rate_limit_id")],
            "post": {"requestBody": _body(RateLimitUpdate), "responses": _answers()},
        },
        f"{base}/budgets": {"parameters": [org], "get": {"responses": _answers()}},
        f"{base}/budget": {"parameters": [org], **budget},
        f"{in_project}/budget": {"parameters": [org, project], **budget},
    }
