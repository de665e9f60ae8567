"""A project's rate limits in the Admin API (admin key), in the hosted service's shape: one limit per model
the sandbox serves (`rl-<model>`) and the sandbox's own `rl-project` on all of them together; a count of
null is no limit. Each change is an audit event (`rate_limit.updated`) written with it."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.admin import AuditType
from app.sandbox.contract.rate_limits import RateLimitUpdate
from app.sandbox.contract.validate import parse_json_body, validate
from app.sandbox.errors import ServiceError, quote
from app.sandbox.routes.admin import _origin, _target
from app.sandbox.store.aggregates import Store
from app.sandbox.store.audit import AuditRecord
from app.sandbox.store.rate_limits import PROJECT, RateLimit


class RateLimitRoutes:
    def __init__(self, store: Store, models: list[str]) -> None:
        self.store = store
        self.models = models

    def _limits(self, project_id: str) -> list[RateLimit]:
        set_ = {limit.model: limit for limit in self.store.rate_limits.of(project_id)}
        return [set_.get(model, RateLimit(project_id, model)) for model in (PROJECT, *self.models)]

    async def list_limits(self, request: Request) -> Response:
        _, project_id, _ = _target(request, self.store)
        data = [limit.as_json() for limit in self._limits(project_id)]
        body = {"object": "list", "data": data, "first_id": data[0]["id"], "last_id": data[-1]["id"]}
        return JSONResponse({**body, "has_more": False})

    async def update(self, request: Request) -> Response:
        scope, project_id, context = _target(request, self.store)
        wanted = request.path_params["rate_limit_id"]
        current = next((limit for limit in self._limits(project_id) if limit.as_json()["id"] == wanted), None)
        if current is None:
            raise ServiceError(
                404, f"No rate limit '{quote(wanted)}' in this project (rl-project, rl-<model>).", "not_found"
            )
        given = validate(RateLimitUpdate, parse_json_body(await request.body()))
        changes = given.model_dump(include=given.model_fields_set)
        changed = RateLimit(
            project_id,
            current.model,
            changes.get("max_requests_per_1_minute", current.max_requests_per_1_minute),
            changes.get("max_tokens_per_1_minute", current.max_tokens_per_1_minute),
        )
        before, after = current.as_json(), changed.as_json()
        audit = AuditRecord(
            AuditType.RATE_LIMIT_UPDATED,
            scope,
            project_id,
            _origin(context, False),
            after["id"],
            before,
            after,
        )
        await self.store.rate_limits.set(changed, audit)
        return JSONResponse(after)
