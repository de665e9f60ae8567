"""The Admin API's keys: the organization's admin keys, each project's API keys, and the service accounts
that own project keys. A key's value is in the answer that creates it and nowhere else (not in the store,
the audit log nor any list); a deleted key is refused from the next request on (store/keys.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.admin import AuditType
from app.sandbox.contract.keys import AdminKeyCreate, PageQuery, ServiceAccountCreate, key_json, page
from app.sandbox.contract.validate import parse_json_body, validate, validate_query
from app.sandbox.errors import ServiceError, quote
from app.sandbox.routes.admin import _context, _origin, _target
from app.sandbox.store.aggregates import Store
from app.sandbox.store.audit import AuditRecord


def _not_found(what: str, given: str) -> ServiceError:
    return ServiceError(404, f"No {what} '{quote(given)}'.", f"{what.lower().replace(' ', '_')}_not_found")


def _shown(permissions: str | Sequence[str]) -> str | list[str]:
    return permissions if isinstance(permissions, str) else sorted(permissions)


class KeyRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _project(self, request: Request) -> str:
        scope, owner, _ = _target(request, self.store)
        if scope != "project":  # the routes below all name a project
            raise _not_found("project", "")
        return owner

    def _admin_keys(self, org_id: str) -> list[dict[str, Any]]:
        return self.store.keys.rows("kind = 'admin' AND org_id = ?", (org_id,))

    async def list_admin_keys(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        _context(request, org_id)
        query = validate_query(PageQuery, request.query_params.multi_items())
        return JSONResponse(page([key_json(row) for row in self._admin_keys(org_id)], query))

    async def create_admin_key(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        context = _context(request, org_id)
        body = validate(AdminKeyCreate, parse_json_body(await request.body()))
        after = {"kind": "admin", "name": body.name, "permissions": _shown(body.permissions)}
        audit = AuditRecord(
            AuditType.KEY_CREATED, "organization", org_id, _origin(context, False), after=after
        )
        value = await self.store.keys.create("admin", org_id, None, body.name, None, body.permissions, audit)
        row = self.store.keys.lookup(value)
        assert row is not None
        made = self.store.keys.find(row.id, "kind = 'admin' AND org_id = ?", (org_id,))
        assert made is not None
        return JSONResponse({**key_json(made), "value": value}, status_code=201)

    async def retrieve_admin_key(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        _context(request, org_id)
        found = self.store.keys.find(
            request.path_params["key_id"], "kind = 'admin' AND org_id = ?", (org_id,)
        )
        if found is None:
            raise _not_found("admin key", request.path_params["key_id"])
        return JSONResponse(key_json(found))

    async def delete_admin_key(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        context = _context(request, org_id)
        key_id = request.path_params["key_id"]
        found = self.store.keys.find(key_id, "kind = 'admin' AND org_id = ?", (org_id,))
        if found is None:
            raise _not_found("admin key", key_id)
        before = {"kind": "admin", "name": found["name"]}
        audit = AuditRecord(
            AuditType.KEY_DELETED, "organization", org_id, _origin(context, False), key_id, before
        )
        await self.store.keys.delete(found["key_hash"], audit)
        return JSONResponse({"object": "organization.admin_api_key.deleted", "id": key_id, "deleted": True})

    async def list_project_keys(self, request: Request) -> Response:
        project_id = self._project(request)
        query = validate_query(PageQuery, request.query_params.multi_items())
        rows = self.store.keys.rows("kind = 'project' AND project_id = ?", (project_id,))
        return JSONResponse(page([key_json(row) for row in rows], query))

    async def retrieve_project_key(self, request: Request) -> Response:
        project_id = self._project(request)
        key_id = request.path_params["key_id"]
        found = self.store.keys.find(key_id, "kind = 'project' AND project_id = ?", (project_id,))
        if found is None:
            raise _not_found("API key", key_id)
        return JSONResponse(key_json(found))

    async def delete_project_key(self, request: Request) -> Response:
        scope, project_id, context = _target(request, self.store)
        key_id = request.path_params["key_id"]
        found = self.store.keys.find(key_id, "kind = 'project' AND project_id = ?", (project_id,))
        if found is None:
            raise _not_found("API key", key_id)
        before = {"kind": "project", "name": found["name"]}
        audit = AuditRecord(AuditType.KEY_DELETED, scope, project_id, _origin(context, False), key_id, before)
        await self.store.keys.delete(found["key_hash"], audit)
        return JSONResponse({"object": "organization.project.api_key.deleted", "id": key_id, "deleted": True})

    async def list_service_accounts(self, request: Request) -> Response:
        project_id = self._project(request)
        query = validate_query(PageQuery, request.query_params.multi_items())
        return JSONResponse(page(self.store.service_accounts.list(project_id), query))

    async def create_service_account(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        _, project_id, context = _target(request, self.store)
        body = validate(ServiceAccountCreate, parse_json_body(await request.body()))
        account, value, key_id = await self.store.service_accounts.create(
            org_id, project_id, body.name, body.permissions, _origin(context, False)
        )
        made = self.store.keys.find(key_id, "project_id = ?", (project_id,))
        assert made is not None
        api_key = {
            "object": "organization.project.service_account.api_key",
            "value": value,
            "name": made["name"],
            "created_at": made["created_at"],
            "id": key_id,
        }
        return JSONResponse({**account, "api_key": api_key}, status_code=201)

    async def retrieve_service_account(self, request: Request) -> Response:
        project_id = self._project(request)
        account_id = request.path_params["account_id"]
        found = self.store.service_accounts.get(project_id, account_id)
        if found is None:
            raise _not_found("service account", account_id)
        return JSONResponse(found)

    async def delete_service_account(self, request: Request) -> Response:
        _, project_id, context = _target(request, self.store)
        account_id = request.path_params["account_id"]
        if not await self.store.service_accounts.delete(project_id, account_id, _origin(context, False)):
            raise _not_found("service account", account_id)
        deleted = {
            "object": "organization.project.service_account.deleted",
            "id": account_id,
            "deleted": True,
        }
        return JSONResponse(deleted)
