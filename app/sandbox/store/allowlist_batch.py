"""Several changes to one allowlist made as one: all of them or none, one new version of the list.

A policy file applied from CI changes many entries at once; sent one by one, a refusal halfway (the
lockout guard, a duplicate, another admin's change) would leave the list half changed. Here every change
is written in one savepoint of the writer's transaction first, and the list in memory is changed only
after the last of them succeeded, so a refusal leaves both the file and memory as they were.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace

from app.netrules import parse_entry
from app.sandbox.contract.admin import AuditType
from app.sandbox.ids import new_id
from app.sandbox.store import audit
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.allowlist_rows import insert_entry
from app.sandbox.store.allowlists import Guard, StoredAllowlists
from app.sandbox.store.audit import AuditRecord, Origin
from app.sandbox.store.entry import EntryRecord


@dataclass(frozen=True)
class NewEntry:
    cidr: str  # canonical
    description: str = ""
    expires_at: int | None = None


@dataclass(frozen=True)
class EntryChange:
    """A new expiry (None: never) and description for an entry that stays."""

    entry_id: str
    expires_at: int | None
    description: str


@dataclass(frozen=True)
class Batch:
    enabled: bool | None = None  # None: the switch stays as it is
    add: tuple[NewEntry, ...] = ()
    update: tuple[EntryChange, ...] = ()
    remove: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.enabled is not None or bool(self.add or self.update or self.remove)


class MissingEntry(KeyError):
    """An entry the batch updates or removes is not on the list."""


async def apply_batch(
    allowlists: StoredAllowlists,
    scope: str,
    owner_id: str,
    batch: Batch,
    guard: Guard | None,
    origin: Origin,
) -> AllowlistRecord:
    """Make every change of `batch` or none; the list as it stands after. `guard` sees the list before
    and raises to refuse the whole batch; MissingEntry or DuplicateEntry refuse it as well."""
    database = allowlists.database
    now = database.now()
    added = [
        (
            EntryRecord(new_id("ipal"), item.cidr, item.description, now, item.expires_at),
            parse_entry(item.cidr),
        )
        for item in batch.add
    ]

    def work(db: sqlite3.Connection) -> AllowlistRecord:
        with allowlists.lock:
            allowlist = allowlists.load_for_change(db, scope, owner_id)
            if guard:
                guard(allowlist)
            records: list[AuditRecord] = []
            updated: list[EntryRecord] = []
            for entry_id in batch.remove:
                before = allowlist.get(entry_id)
                if before is None:
                    raise MissingEntry(entry_id)
                db.execute("DELETE FROM entries WHERE id = ?", (entry_id,))
                kind = AuditType.ENTRY_DELETED
                records.append(AuditRecord(kind, scope, owner_id, origin, entry_id, before.state(), None))
            for change in batch.update:
                before = allowlist.get(change.entry_id)
                if before is None or change.entry_id in batch.remove:
                    raise MissingEntry(change.entry_id)
                after = replace(before, expires_at=change.expires_at, description=change.description)
                db.execute(
                    "UPDATE entries SET expires_at = ?, description = ? WHERE id = ?",
                    (after.expires_at, after.description, after.id),
                )
                updated.append(after)
                kind = AuditType.ENTRY_UPDATED
                records.append(
                    AuditRecord(kind, scope, owner_id, origin, after.id, before.state(), after.state())
                )
            for entry, _ in added:
                insert_entry(db, scope, owner_id, entry)
                kind = AuditType.ENTRY_CREATED
                records.append(AuditRecord(kind, scope, owner_id, origin, entry.id, None, entry.state()))
            enabled = allowlist.enabled if batch.enabled is None else batch.enabled
            if enabled != allowlist.enabled:
                kind = AuditType.ENABLED if enabled else AuditType.DISABLED
                switch = ({"enabled": allowlist.enabled}, {"enabled": enabled})
                records.append(AuditRecord(kind, scope, owner_id, origin, None, *switch))
            allowlists.bump(db, allowlist, enabled)
            for record in records:
                audit.insert(db, record, database.now())
            # Every write went through: only now does the list in memory change.
            for entry_id in batch.remove:
                allowlist.removed(entry_id)
            for entry in updated:
                allowlist.updated(entry)
            for entry, network in added:
                allowlist.added(entry, network)
            allowlist.enabled = enabled
            allowlist.version += 1
            return allowlist

    return await database.write(work, lists=True)
