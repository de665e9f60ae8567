"""The Admin API: organization and project IP allowlists, and the list of projects."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.netrules import Address, EntryError, parse_entry
from app.netrules.policy import enabling_locks_out, removal_locks_out

from .contract import EntryCreate, ForceQuery, ListPatch
from .errors import ServiceError, quote
from .gateway import RequestContext
from .store import Allowlist, DuplicateEntry, Store
from .validate import parse_json_body, validate, validate_query


def _context(request: Request, org_id: str, store: Store) -> RequestContext:
    context: RequestContext = request.scope["state"]["gateway"]
    if context.key.kind != "admin":
        raise ServiceError(
            403,
            "A project API key cannot use the Admin API: use an admin key of the organization.",
            "insufficient_permissions",
        )
    if context.key.org_id != org_id:
        raise ServiceError(
            403,
            f"This admin key does not belong to organization '{quote(org_id)}'.",
            "insufficient_permissions",
        )
    return context


def _target(request: Request, store: Store) -> tuple[str, str, RequestContext]:
    """(scope, owner id, context) of the list the path names."""
    org_id = request.path_params["org_id"]
    context = _context(request, org_id, store)
    project_id = request.path_params.get("project_id")
    if project_id is None:
        return "organization", org_id, context
    if store.project_org(project_id) != org_id:
        raise ServiceError(
            404, f"No project '{quote(project_id)}' in organization '{quote(org_id)}'.", "project_not_found"
        )
    return "project", project_id, context


def list_json(allowlist: Allowlist, source_ip: Address | None) -> dict[str, Any]:
    return {
        "object": "ip_allowlist",
        "scope": allowlist.scope,
        "owner_id": allowlist.owner_id,
        "enabled": allowlist.enabled,
        "entries": [entry.as_json() for entry in allowlist.entries],
        "source_ip": str(source_ip) if source_ip is not None else None,
    }


def _forced(request: Request) -> bool:
    """`?force=true|false` and nothing else (`1`, `null`, a repeat or an unknown name is a 400)."""
    try:
        return validate_query(ForceQuery, request.query_params.multi_items()).force == "true"
    except ServiceError as error:
        if error.param == "force":
            error.message = "'force' must be true or false."
        raise


def _refuse_lockout(what: str, source_ip: Address | None) -> ServiceError:
    seen = str(source_ip) if source_ip is not None else "an unknown address"
    return ServiceError(
        409,
        f"{what} would block your own address ({seen}) from the API. "
        "Add an entry that covers it first, or repeat the request with ?force=true.",
        "would_block_caller",
    )


class AdminRoutes:
    def __init__(self, store: Store, max_entries: int) -> None:
        self.store = store
        self.max_entries = max_entries

    async def get_list(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        return JSONResponse(list_json(self.store.allowlist(scope, owner), context.source_ip))

    async def patch_list(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        enabled = validate(ListPatch, parse_json_body(await request.body())).enabled
        forced = _forced(request)  # read before the write: a bad ?force is a 400 that changes nothing

        # Checked on the store's writer against the list as it stands, so two changes at once cannot both
        # pass a check that each would fail after the other.
        def refuse_lockout(current: Allowlist) -> None:
            if enabled and not current.enabled and not forced:
                if enabling_locks_out(current, context.source_ip):
                    what = "Switching on an empty list" if not len(current) else "Switching the list on"
                    raise _refuse_lockout(what, context.source_ip)

        allowlist = await self.store.set_enabled_async(scope, owner, enabled, refuse_lockout)
        return JSONResponse(list_json(allowlist, context.source_ip))

    async def add_entry(self, request: Request) -> Response:
        scope, owner, _ = _target(request, self.store)
        body = validate(EntryCreate, parse_json_body(await request.body()))
        cidr, description = body.cidr, body.description or ""
        try:
            network = parse_entry(cidr)
        except EntryError as error:
            raise ServiceError(400, quote(error.message, 200), "invalid_cidr", "cidr") from None

        def refuse_when_full(current: Allowlist) -> None:
            if len(current) >= self.max_entries:
                raise ServiceError(
                    400,
                    f"The list already holds the maximum of {self.max_entries:,} entries.",
                    "too_many_entries",
                    "cidr",
                )

        try:
            entry = await self.store.add_entry_async(
                scope, owner, network.with_prefixlen, description, refuse_when_full
            )
        except DuplicateEntry as duplicate:
            raise ServiceError(
                409,
                f"{network.with_prefixlen} is already on the list as entry {duplicate.existing_id}.",
                "duplicate_entry",
                "cidr",
            ) from None
        return JSONResponse(entry.as_json(), status_code=201)

    async def delete_entry(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        entry_id = request.path_params["entry_id"]
        forced = _forced(request)

        def refuse(current: Allowlist) -> None:  # on the store's writer, as refuse_lockout above
            if current.get(entry_id) is None:
                raise ServiceError(404, f"No entry '{quote(entry_id)}' on this list.", "entry_not_found")
            if current.enabled and not forced and removal_locks_out(current, {entry_id}, context.source_ip):
                raise _refuse_lockout("Removing this entry", context.source_ip)

        if not await self.store.remove_entry_async(scope, owner, entry_id, refuse):
            raise ServiceError(404, f"No entry '{quote(entry_id)}' on this list.", "entry_not_found")
        return JSONResponse({"object": "ip_allowlist.entry.deleted", "id": entry_id, "deleted": True})

    async def list_projects(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        _context(request, org_id, self.store)
        return JSONResponse({"object": "list", "data": self.store.projects(org_id)})
