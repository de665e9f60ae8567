"""The Admin API: organization and project IP allowlists, their audit log, and the list of projects.

Every change is checked on the store's writer against the list as it stands (the lockout guard, the
list's size, `If-Match`), so two changes at once cannot both pass a check that each would fail after the
other; what was refused is written to the audit log as well as what was made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.netrules import Address, EntryError, parse_entry
from app.netrules.policy import enabling_locks_out, removal_locks_out
from app.sandbox.contract.admin import (
    AuditActorKind,
    AuditQuery,
    AuditType,
    EntryCreate,
    EntryPatch,
    ForceQuery,
    ListPatch,
    NoQuery,
)
from app.sandbox.contract.validate import parse_json_body, validate, validate_query
from app.sandbox.errors import ServiceError, quote
from app.sandbox.gateway.context import RequestContext
from app.sandbox.store.aggregates import Store
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.allowlist_rows import DuplicateEntry
from app.sandbox.store.audit import Actor, AuditRecord, Origin

T = TypeVar("T")
MAX_IF_MATCH = 200  # characters of If-Match: a few versions, not a body


def _context(request: Request, org_id: str) -> RequestContext:
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
    context = _context(request, org_id)
    project_id = request.path_params.get("project_id")
    if project_id is None:
        return "organization", org_id, context
    if store.organizations.project_org(project_id) != org_id:
        raise ServiceError(
            404, f"No project '{quote(project_id)}' in organization '{quote(org_id)}'.", "project_not_found"
        )
    return "project", project_id, context


def etag(version: int) -> str:
    return f'"v{version}"'


def list_json(allowlist: AllowlistRecord, source_ip: Address | None, now: float) -> dict[str, Any]:
    return {
        "object": "ip_allowlist",
        "scope": allowlist.scope,
        "owner_id": allowlist.owner_id,
        "enabled": allowlist.enabled,
        "version": f"v{allowlist.version}",
        "entries": allowlist.entries_json(now),
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


def _if_match(request: Request) -> set[str] | None:
    """The versions an `If-Match` header accepts (`*`: any), or None without one."""
    values = request.headers.getlist("if-match")
    if not values:
        return None
    if sum(map(len, values)) > MAX_IF_MATCH:
        raise ServiceError(
            400, f"If-Match is longer than {MAX_IF_MATCH} characters.", "invalid_if_match", "If-Match"
        )
    tokens = {token.strip().removeprefix("W/").strip('"') for value in values for token in value.split(",")}
    return tokens - {""}


def _origin(context: RequestContext, forced: bool) -> Origin:
    key = context.key
    source = str(context.source_ip) if context.source_ip is not None else None
    return Origin(Actor(AuditActorKind.API_KEY, key.id, key.name), source, forced)


def _refuse_lockout(what: str, source_ip: Address | None) -> ServiceError:
    seen = str(source_ip) if source_ip is not None else "an unknown address"
    return ServiceError(
        409,
        f"{what} would block your own address ({seen}) from the API "
        "(an entry expiring within a minute does not count as covering it). "
        "Add an entry that covers it first, or repeat the request with ?force=true.",
        "would_block_caller",
    )


def _future_expiry(expires_at: int | None, now: float) -> None:
    if expires_at is not None and expires_at <= now:
        raise ServiceError(
            400,
            f"'expires_at' ({expires_at}) is not in the future (the service's time is {int(now)}).",
            "invalid_expires_at",
            "expires_at",
        )


class AdminRoutes:
    def __init__(self, store: Store, max_entries: int) -> None:
        self.store = store
        self.max_entries = max_entries

    def _precondition(self, request: Request, context: RequestContext) -> Callable[[AllowlistRecord], None]:
        """A guard refusing the change with 412 when If-Match names a version the list no longer has."""
        wanted = _if_match(request)

        def check(current: AllowlistRecord) -> None:
            if wanted is None or "*" in wanted or f"v{current.version}" in wanted:
                return
            now = self.store.clock()
            raise ServiceError(
                412,
                "The list changed since you read it (If-Match names an earlier version): "
                "'current' is the list as it stands; make the change again against it.",
                "precondition_failed",
                headers={"etag": etag(current.version)},
                extra={"current": list_json(current, context.source_ip, now)},
            )

        return check

    async def get_list(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        allowlist = self.store.allowlists.get(scope, owner)
        body = list_json(allowlist, context.source_ip, self.store.clock())
        return JSONResponse(body, headers={"etag": etag(allowlist.version)})

    async def patch_list(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        enabled = validate(ListPatch, parse_json_body(await request.body())).enabled
        forced = _forced(request)  # read before the write: a bad ?force is a 400 that changes nothing
        precondition = self._precondition(request, context)

        def guard(current: AllowlistRecord) -> None:
            precondition(current)
            if enabled and not current.enabled and not forced:
                if enabling_locks_out(current.lasting(self.store.clock()), context.source_ip):
                    what = "Switching on an empty list" if not len(current) else "Switching the list on"
                    raise _refuse_lockout(what, context.source_ip)

        origin = _origin(context, forced)
        kind = AuditType.ENABLED if enabled else AuditType.DISABLED
        refused = AuditRecord(kind, scope, owner, origin, after={"enabled": enabled})
        change = self.store.allowlists.set_enabled(scope, owner, enabled, guard, origin)
        allowlist = await self.store.audit.recorded(refused, change)
        body = list_json(allowlist, context.source_ip, self.store.clock())
        return JSONResponse(body, headers={"etag": etag(allowlist.version)})

    async def add_entry(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        body = validate(EntryCreate, parse_json_body(await request.body()))
        validate_query(NoQuery, request.query_params.multi_items())  # `?force` too: an add needs no override
        cidr, description = body.cidr, body.description or ""
        try:
            network = parse_entry(cidr)
        except EntryError as error:
            raise ServiceError(400, quote(error.message, 200), "invalid_cidr", "cidr") from None
        now = self.store.clock()
        _future_expiry(body.expires_at, now)
        precondition = self._precondition(request, context)

        def guard(current: AllowlistRecord) -> None:
            precondition(current)
            if len(current) >= self.max_entries:
                raise ServiceError(
                    400,
                    f"The list already holds the maximum of {self.max_entries:,} entries.",
                    "too_many_entries",
                    "cidr",
                )

        async def add() -> tuple[Any, int]:
            try:
                return await self.store.allowlists.add_entry(
                    scope,
                    owner,
                    network.with_prefixlen,
                    description,
                    expires_at=body.expires_at,
                    guard=guard,
                    origin=origin,
                )
            except DuplicateEntry as duplicate:
                raise ServiceError(
                    409,
                    f"{network.with_prefixlen} is already on the list as entry {duplicate.existing_id}.",
                    "duplicate_entry",
                    "cidr",
                ) from None

        origin = _origin(context, False)
        wanted = {"cidr": network.with_prefixlen, "description": description, "expires_at": body.expires_at}
        refused = AuditRecord(AuditType.ENTRY_CREATED, scope, owner, origin, after=wanted)
        entry, version = await self.store.audit.recorded(refused, add())
        return JSONResponse(
            entry.as_json(self.store.clock()), status_code=201, headers={"etag": etag(version)}
        )

    async def update_entry(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        entry_id = request.path_params["entry_id"]
        body = validate(EntryPatch, parse_json_body(await request.body()))
        forced = _forced(request)
        _future_expiry(body.expires_at, self.store.clock())
        precondition = self._precondition(request, context)

        def guard(current: AllowlistRecord) -> None:
            precondition(current)
            if current.get(entry_id) is None:
                raise ServiceError(404, f"No entry '{quote(entry_id)}' on this list.", "entry_not_found")
            if current.enabled and not forced and context.source_ip is not None:
                now = self.store.clock()
                covered = current.lasting(now).holders(context.source_ip)
                after = current.lasting(now, {entry_id: body.expires_at}).holders(context.source_ip)
                if covered and not after:
                    raise _refuse_lockout("Expiring this entry so soon", context.source_ip)

        origin = _origin(context, forced)
        current = self.store.allowlists.get(scope, owner).get(entry_id)
        wanted = {"id": entry_id, "expires_at": body.expires_at}
        if body.description is not None:
            wanted["description"] = body.description
        refused = AuditRecord(
            AuditType.ENTRY_UPDATED,
            scope,
            owner,
            origin,
            entry_id,
            current.state() if current else None,
            wanted,
        )
        change = self.store.allowlists.update_entry(
            scope, owner, entry_id, body.expires_at, body.description, guard, origin
        )
        entry, version = await self.store.audit.recorded(refused, change)
        allowlist = self.store.allowlists.get(scope, owner)
        payload = allowlist.entry_json(entry, self.store.clock())
        return JSONResponse(payload, headers={"etag": etag(version)})

    async def delete_entry(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        entry_id = request.path_params["entry_id"]
        forced = _forced(request)
        precondition = self._precondition(request, context)

        def guard(current: AllowlistRecord) -> None:  # on the store's writer, as the others
            precondition(current)
            if current.get(entry_id) is None:
                raise ServiceError(404, f"No entry '{quote(entry_id)}' on this list.", "entry_not_found")
            lasting = current.lasting(self.store.clock())
            if current.enabled and not forced and removal_locks_out(lasting, {entry_id}, context.source_ip):
                raise _refuse_lockout("Removing this entry", context.source_ip)

        origin = _origin(context, forced)
        current = self.store.allowlists.get(scope, owner).get(entry_id)
        before = current.state() if current else {"id": entry_id}
        refused = AuditRecord(AuditType.ENTRY_DELETED, scope, owner, origin, entry_id, before)
        version = await self.store.audit.recorded(
            refused, self.store.allowlists.remove_entry(scope, owner, entry_id, guard, origin)
        )
        if version is None:
            raise ServiceError(404, f"No entry '{quote(entry_id)}' on this list.", "entry_not_found")
        deleted = {"object": "ip_allowlist.entry.deleted", "id": entry_id, "deleted": True}
        return JSONResponse(deleted, headers={"etag": etag(version)})

    async def audit_log(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        _context(request, org_id)
        query = validate_query(AuditQuery, request.query_params.multi_items())
        return JSONResponse(self.store.audit.page(org_id, query))

    async def list_projects(self, request: Request) -> Response:
        org_id = request.path_params["org_id"]
        _context(request, org_id)
        return JSONResponse({"object": "list", "data": self.store.organizations.projects(org_id)})
