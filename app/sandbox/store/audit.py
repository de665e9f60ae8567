"""The service's audit log: every change to an allowlist, made or refused, with who asked and from where.

A change made is recorded in the same transaction as the change itself (both or neither survive a crash);
a refusal (the lockout guard, a stale If-Match, a duplicate) is recorded by a write of its own. An admin
key appears by its id and name, never its secret. Events page newest first by their sequence number,
which is also their id's tail, so a cursor stays valid however many events arrive meanwhile.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Awaitable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from app.sandbox.contract.admin import AuditActorKind, AuditQuery, AuditResult, AuditType
from app.sandbox.errors import ServiceError, quote
from app.sandbox.store.database import Database

_ID = re.compile(r"^audit_([0-9]{1,18})$")


@dataclass(frozen=True)
class Actor:
    """Who asked: an admin key (id and name), the dashboard command line, or the service itself."""

    kind: AuditActorKind
    key_id: str | None = None
    name: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"type": self.kind.value, "id": self.key_id, "name": self.name}


DASHBOARD = Actor(AuditActorKind.DASHBOARD, None, "dashboard")
SERVICE = Actor(AuditActorKind.SERVICE, None, "service")


@dataclass(frozen=True)
class Origin:
    """Who asked for a change, from which address, and whether the lockout guard was overridden."""

    actor: Actor
    source_ip: str | None = None
    forced: bool = False


DASHBOARD_ORIGIN = Origin(DASHBOARD)
SERVICE_ORIGIN = Origin(SERVICE)


@dataclass(frozen=True)
class AuditRecord:
    type: AuditType
    scope: str
    owner_id: str
    origin: Origin
    entry_id: str | None = None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    result: AuditResult = AuditResult.APPLIED
    status: int = 200
    code: str | None = None


def org_of(db: sqlite3.Connection, scope: str, owner_id: str) -> str | None:
    if scope == "organization":
        return owner_id
    row = db.execute("SELECT org_id FROM projects WHERE id = ?", (owner_id,)).fetchone()
    return None if row is None else str(row[0])


def insert(db: sqlite3.Connection, record: AuditRecord, now: int) -> None:
    """Append one event (on the store's writer, inside its transaction)."""
    org_id = org_of(db, record.scope, record.owner_id)
    if org_id is None:  # a project that does not exist: nothing was changed, nobody's log to write to
        return
    project_id = record.owner_id if record.scope == "project" else None
    body = {
        "type": record.type.value,
        "created_at": now,
        "actor": record.origin.actor.as_json(),
        "source_ip": record.origin.source_ip,
        "scope": record.scope,
        "owner_id": record.owner_id,
        "project_id": project_id,
        "entry_id": record.entry_id,
        "before": record.before,
        "after": record.after,
        "result": record.result.value,
        "status": record.status,
        "code": record.code,
        "forced": record.origin.forced,
    }
    db.execute(
        "INSERT INTO audit_log (org_id, project_id, type, created_at, body) VALUES (?, ?, ?, ?, ?)",
        (org_id, project_id, record.type.value, now, json.dumps(body, separators=(",", ":"))),
    )


def page(db: sqlite3.Connection, org_id: str, query: AuditQuery) -> dict[str, Any]:
    """One page of an organization's events, newest first, after the cursor `query.after`."""
    where: list[str] = ["org_id = ?"]
    args: list[Any] = [org_id]
    if query.after is not None:
        match = _ID.match(query.after)
        if match is None:
            raise ServiceError(
                400,
                f"'{quote(query.after)}' is not an audit log event id (audit_...).",
                "invalid_cursor",
                "after",
            )
        where.append("seq < ?")
        args.append(int(match.group(1)))
    if query.type is not None:
        where.append("type = ?")
        args.append(query.type.value)
    if query.project_id is not None:
        where.append("project_id = ?")
        args.append(query.project_id)
    rows = db.execute(
        f"SELECT seq, body FROM audit_log WHERE {' AND '.join(where)} ORDER BY seq DESC LIMIT ?",
        (*args, query.limit + 1),
    ).fetchall()
    events = [{"object": "audit_log.event", "id": f"audit_{seq}", **json.loads(body)} for seq, body in rows]
    data = events[: query.limit]
    return {
        "object": "list",
        "data": data,
        "first_id": data[0]["id"] if data else None,
        "last_id": data[-1]["id"] if data else None,
        "has_more": len(events) > query.limit,
    }


T = TypeVar("T")


class AuditLog:
    """The audit log of one store: the refusals recorded here, the changes by the allowlists' own writes."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def record(self, record: AuditRecord) -> None:
        """Record a refused change (a change made is recorded with it, in its own transaction)."""
        now = self._database.now()
        await self._database.write(lambda db: insert(db, record, now))

    async def recorded(self, refused: AuditRecord, change: Awaitable[T]) -> T:
        """Await the change; a refusal (a ServiceError) is written to the audit log as `refused`, with its
        status and code, before it goes back to the caller."""
        try:
            return await change
        except ServiceError as error:
            await self.record(
                replace(refused, result=AuditResult.REFUSED, status=error.status, code=error.code)
            )
            raise

    def page(self, org_id: str, query: AuditQuery) -> dict[str, Any]:
        return self._database.read(lambda db: page(db, org_id, query))
