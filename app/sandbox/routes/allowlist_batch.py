"""`POST .../ip_allowlist/batch`: several changes to one list, made all or none (store/allowlist_batch.py).

The guards are the single changes' ones, decided on the list as the batch would leave it: `If-Match`, the
entry limit, and the lockout guard (a batch that leaves the caller's address out of a list that admitted
it is a 409 unless `?force=true`). Every change is in the audit log; a refused batch is recorded once.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.netrules import Address, EntryError, parse_entry, unmapped
from app.sandbox.contract.admin import AuditType
from app.sandbox.contract.admin_batch import BatchBody
from app.sandbox.contract.validate import parse_json_body, validate
from app.sandbox.errors import ServiceError, quote
from app.sandbox.routes.admin import (
    AdminRoutes,
    _forced,
    _future_expiry,
    _origin,
    _refuse_lockout,
    _target,
    etag,
    list_json,
)
from app.sandbox.store.allowlist_batch import Batch, EntryChange, MissingEntry, NewEntry, apply_batch
from app.sandbox.store.allowlist_record import LOCKOUT_MARGIN, AllowlistRecord
from app.sandbox.store.allowlist_rows import DuplicateEntry
from app.sandbox.store.audit import AuditRecord


def _batch(body: BatchBody, now: float) -> Batch:
    added = []
    for item in body.add:
        try:
            network = parse_entry(item.cidr)
        except EntryError as error:
            raise ServiceError(400, quote(error.message, 200), "invalid_cidr", "add") from None
        _future_expiry(item.expires_at, now)
        added.append(NewEntry(network.with_prefixlen, item.description or "", item.expires_at))
    if len({item.cidr for item in added}) < len(added):
        raise ServiceError(400, "The batch adds the same address twice.", "duplicate_entry", "add")
    updates = []
    for change in body.update:
        _future_expiry(change.expires_at, now)
        updates.append(EntryChange(change.id, change.expires_at, change.description or ""))
    if len(set(body.remove)) < len(body.remove):
        raise ServiceError(400, "The batch removes the same entry twice.", "invalid_request", "remove")
    return Batch(body.enabled, tuple(added), tuple(updates), tuple(body.remove))


def _admits_after(current: AllowlistRecord, batch: Batch, source: Address, now: float) -> bool:
    """Whether the list as the batch leaves it admits `source` for more than the lockout margin."""
    after = now + LOCKOUT_MARGIN
    overrides = {change.entry_id: change.expires_at for change in batch.update}
    staying = set(current.lasting(now, overrides).holders(source)) - set(batch.remove)
    return bool(staying) or any(
        (item.expires_at is None or item.expires_at > after) and source in parse_entry(item.cidr)
        for item in batch.add
        if parse_entry(item.cidr).version == source.version
    )


def locks_out(current: AllowlistRecord, batch: Batch, source: Address | None, now: float) -> bool:
    """Whether the batch takes the caller's address out of a list that admitted it."""
    enabled = current.enabled if batch.enabled is None else batch.enabled
    if not enabled:
        return False
    if source is None:
        return not current.enabled  # an unknown address is refused by any list that is on
    source = unmapped(source)
    admitted_before = not current.enabled or bool(current.lasting(now).holders(source))
    return admitted_before and not _admits_after(current, batch, source, now)


class BatchRoutes:
    def __init__(self, admin: AdminRoutes) -> None:
        self.admin = admin
        self.store = admin.store

    async def apply(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        body = validate(BatchBody, parse_json_body(await request.body()))
        forced = _forced(request)
        batch = _batch(body, self.store.clock())
        precondition = self.admin._precondition(request, context)
        limit = self.admin.max_entries

        def guard(current: AllowlistRecord) -> None:
            precondition(current)
            size = len(current) - len(batch.remove) + len(batch.add)
            if batch.add and size > limit:
                raise ServiceError(
                    400,
                    f"The list would hold {size:,} entries, over the maximum of {limit:,}.",
                    "too_many_entries",
                )
            if not forced and locks_out(current, batch, context.source_ip, self.store.clock()):
                raise _refuse_lockout("This batch of changes", context.source_ip)

        origin = _origin(context, forced)

        async def change() -> AllowlistRecord:
            try:
                return await apply_batch(self.store.allowlists, scope, owner, batch, guard, origin)
            except MissingEntry as missing:
                raise ServiceError(
                    404, f"No entry '{quote(str(missing.args[0]))}' on this list.", "entry_not_found"
                ) from None
            except DuplicateEntry as duplicate:
                raise ServiceError(
                    409,
                    f"An added address is already on the list as entry {duplicate.existing_id}.",
                    "duplicate_entry",
                    "add",
                ) from None

        wanted = {"batch": {"add": len(batch.add), "update": len(batch.update), "remove": len(batch.remove)}}
        refused = AuditRecord(AuditType.ENTRY_UPDATED, scope, owner, origin, after=wanted)
        allowlist = await self.admin.store.audit.recorded(refused, change())
        payload = list_json(allowlist, context.source_ip, self.store.clock())
        return JSONResponse(payload, headers={"etag": etag(allowlist.version)})
