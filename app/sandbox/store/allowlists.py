"""The allowlists of one store: kept in memory (one `AllowlistRecord` each, changed in place by the writer),
every change written with its audit event in one transaction.

Other processes (the dashboard command line) may write the same file, and a generation number that every
allowlist write raises tells us when they did, so no list in memory outlives a change. Each list also has a
version of its own (its ETag), raised by every change to it.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import replace

from app.netrules import parse_entry
from app.sandbox.contract.admin import AuditType
from app.sandbox.ids import new_id
from app.sandbox.store import audit
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.allowlist_rows import insert_entry, read_list, write_list
from app.sandbox.store.audit import DASHBOARD_ORIGIN, SERVICE_ORIGIN, AuditRecord, Origin
from app.sandbox.store.database import Database
from app.sandbox.store.entry import EntryRecord, EntryUsage

Guard = Callable[
    [AllowlistRecord], None
]  # looks at the list as it stands before a change; raises to refuse it

GENERATION = "SELECT value FROM meta WHERE name = 'allowlists_generation'"
NEXT_GENERATION = "UPDATE meta SET value = value + 1 WHERE name = 'allowlists_generation'"


class StoredAllowlists:
    """The organizations' and projects' allowlists. Thread-safe: the database's lock guards the lists in
    memory too, and the writer changes them only under it."""

    def __init__(
        self, database: Database, compile_later: Callable[[AllowlistRecord], None] | None = None
    ) -> None:
        self._database = database
        self._lock = database.lock
        self._compile_later = compile_later
        self.in_memory: dict[tuple[str, str], AllowlistRecord] = {}
        # Usage counted on lists dropped from memory, not yet flushed: it goes on with the list read again.
        self.carried: dict[tuple[str, str], list[EntryUsage]] = {}
        self._generation = -1  # the allowlist generation the lists in memory stand for
        self._committing = False  # the writer raised the generation and is committing it
        self._dirty = False  # a write failed after changing memory: read everything again
        self._batch_generation = 0

    # Called by the writer around a batch that changes allowlists. Each write's `work` changes memory last,
    # under the lock, so a refused write leaves memory as it was.

    def batch_begins(self, db: sqlite3.Connection) -> None:
        self._batch_generation = db.execute(GENERATION).fetchone()[0]
        with self._lock:
            if self._dirty or self._batch_generation != self._generation:  # another process wrote meanwhile
                self._forget_lists(self._batch_generation)

    def batch_commits(self, db: sqlite3.Connection) -> None:
        db.execute(NEXT_GENERATION)
        with self._lock:
            self._generation, self._committing = self._batch_generation + 1, True

    def batch_ends(self, committed: bool) -> None:
        with self._lock:
            self._committing = False
            if not committed:
                self._dirty = True

    # -- the lists in memory ----------------------------------------------------------------------

    def _forget_lists(self, generation: int) -> None:
        for (
            key,
            allowlist,
        ) in self.in_memory.items():  # usage not yet flushed goes on with the list read again
            self.carried.setdefault(key, []).extend(allowlist.take_usage())
        self.in_memory.clear()
        self._generation, self._dirty = generation, False

    def _check_generation(self) -> None:
        """Under the lock, on the reading connection: drop the lists if another process changed them.
        Nothing committed since the last check (the WAL-index header says so): nothing to ask."""
        commits = self._database.commits
        if not self._dirty and commits.unchanged():
            return
        commits.seen()  # before the query: a commit after this makes the next call ask again
        generation = self._database.reader.execute(GENERATION).fetchone()[0]
        ours = generation == self._generation or (self._committing and generation == self._generation - 1)
        if self._dirty or not ours:
            self._forget_lists(generation)

    def _load(self, db: sqlite3.Connection, scope: str, owner_id: str) -> AllowlistRecord:
        """The list from `db`, kept in memory (the lock is held)."""
        allowlist = self.in_memory.get((scope, owner_id))
        if allowlist is None:
            enabled, version, entries = read_list(db, scope, owner_id)
            allowlist = AllowlistRecord(
                scope, owner_id, enabled, entries, self._lock, version, self._compile_later
            )
            allowlist.carry(self.carried.pop((scope, owner_id), ()))
            self.in_memory[(scope, owner_id)] = allowlist
        return allowlist

    def _bump(self, db: sqlite3.Connection, allowlist: AllowlistRecord, enabled: bool | None = None) -> None:
        """Raise the list's version (and set its switch), in the change's transaction."""
        switch = allowlist.enabled if enabled is None else enabled
        write_list(db, allowlist.scope, allowlist.owner_id, switch, allowlist.version + 1)

    # For writes made elsewhere (allowlist_batch.py), on the writer, holding `lock`.
    @property
    def database(self) -> Database:
        return self._database

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def load_for_change(self, db: sqlite3.Connection, scope: str, owner_id: str) -> AllowlistRecord:
        return self._load(db, scope, owner_id)

    def bump(self, db: sqlite3.Connection, allowlist: AllowlistRecord, enabled: bool | None = None) -> None:
        self._bump(db, allowlist, enabled)

    # -- reads ------------------------------------------------------------------------------------

    def get(self, scope: str, owner_id: str) -> AllowlistRecord:
        """The list as it stands: kept in memory, read again only after another process wrote."""
        with self._lock:
            self._check_generation()
            if (scope, owner_id) in self.in_memory:
                return self.in_memory[(scope, owner_id)]
            db = self._database.reader
            db.execute("BEGIN")  # one snapshot for the enabled flag and the entries
            try:
                return self._load(db, scope, owner_id)
            finally:
                db.execute("COMMIT")

    def for_caller(
        self, org_id: str, project_id: str | None
    ) -> tuple[AllowlistRecord, AllowlistRecord | None]:
        """The organization's list and the project's (None without a project), as `get` gives them:
        for the gateway, which asks on every request, under one lock and one look at the commits."""
        with self._lock:
            self._check_generation()
            organization = self.in_memory.get(("organization", org_id))
            if organization is None:  # (an empty list is falsy: `is None`, not `or`)
                organization = self.get("organization", org_id)
            if project_id is None:
                return organization, None
            project = self.in_memory.get(("project", project_id))
            return organization, project if project is not None else self.get("project", project_id)

    def find_entry(self, scope: str, owner_id: str, id_or_cidr: str) -> EntryRecord | None:
        return self.get(scope, owner_id).find(id_or_cidr)

    # -- changes ----------------------------------------------------------------------------------

    async def set_enabled(
        self,
        scope: str,
        owner_id: str,
        enabled: bool,
        guard: Guard | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> AllowlistRecord:
        def work(db: sqlite3.Connection) -> AllowlistRecord:
            with self._lock:
                allowlist = self._load(db, scope, owner_id)
                if guard:
                    guard(allowlist)
                kind = AuditType.ENABLED if enabled else AuditType.DISABLED
                before, after = {"enabled": allowlist.enabled}, {"enabled": enabled}
                self._bump(db, allowlist, enabled)
                record = AuditRecord(kind, scope, owner_id, origin, None, before, after)
                audit.insert(db, record, self._database.now())
                allowlist.enabled = enabled
                allowlist.version += 1
            return allowlist

        return await self._database.write(work, lists=True)

    async def add_entry(
        self,
        scope: str,
        owner_id: str,
        cidr: str,
        description: str = "",
        *,
        expires_at: int | None = None,
        guard: Guard | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> tuple[EntryRecord, int]:
        """Add a canonical CIDR: the entry added, and the list's version after it; DuplicateEntry names the
        entry that already is it."""
        network = parse_entry(cidr)
        now = self._database.now()
        entry = EntryRecord(new_id("ipal"), network.with_prefixlen, description, now, expires_at)

        def work(db: sqlite3.Connection) -> tuple[EntryRecord, int]:
            with self._lock:
                allowlist = self._load(db, scope, owner_id)
                if guard:
                    guard(allowlist)
                insert_entry(db, scope, owner_id, entry)
                self._bump(db, allowlist)
                record = AuditRecord(
                    AuditType.ENTRY_CREATED, scope, owner_id, origin, entry.id, None, entry.state()
                )
                audit.insert(db, record, self._database.now())
                allowlist.added(entry, network)
                allowlist.version += 1
                return entry, allowlist.version

        return await self._database.write(work, lists=True)

    async def update_entry(
        self,
        scope: str,
        owner_id: str,
        entry_id: str,
        expires_at: int | None,
        description: str | None,
        guard: Guard | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> tuple[EntryRecord, int]:
        """The entry with its new expiry (and description), and the list's version after it; KeyError if
        the list has no such entry."""

        def work(db: sqlite3.Connection) -> tuple[EntryRecord, int]:
            with self._lock:
                allowlist = self._load(db, scope, owner_id)
                if guard:
                    guard(allowlist)
                before = allowlist.get(entry_id)
                if before is None:
                    raise KeyError(entry_id)
                after = replace(
                    before,
                    expires_at=expires_at,
                    description=before.description if description is None else description,
                )
                db.execute(
                    "UPDATE entries SET expires_at = ?, description = ? WHERE id = ?",
                    (after.expires_at, after.description, entry_id),
                )
                self._bump(db, allowlist)
                record = AuditRecord(
                    AuditType.ENTRY_UPDATED, scope, owner_id, origin, entry_id, before.state(), after.state()
                )
                audit.insert(db, record, self._database.now())
                allowlist.updated(after)
                allowlist.version += 1
                return after, allowlist.version

        return await self._database.write(work, lists=True)

    def _remove_entry(
        self, scope: str, owner_id: str, entry_id: str, guard: Guard | None, origin: Origin, kind: AuditType
    ) -> Callable[[sqlite3.Connection], int | None]:
        def work(db: sqlite3.Connection) -> int | None:
            with self._lock:
                allowlist = self._load(db, scope, owner_id)
                if guard:
                    guard(allowlist)
                before = allowlist.get(entry_id)
                cursor = db.execute(
                    "DELETE FROM entries WHERE scope = ? AND owner_id = ? AND id = ?",
                    (scope, owner_id, entry_id),
                )
                if not cursor.rowcount:
                    return None
                self._bump(db, allowlist)
                state = before.state() if before else {"id": entry_id}
                record = AuditRecord(kind, scope, owner_id, origin, entry_id, state, None)
                audit.insert(db, record, self._database.now())
                allowlist.removed(entry_id)
                allowlist.version += 1
                return allowlist.version

        return work

    async def remove_entry(
        self,
        scope: str,
        owner_id: str,
        entry_id: str,
        guard: Guard | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> int | None:
        """The list's version after the removal, or None when the list had no such entry."""
        work = self._remove_entry(scope, owner_id, entry_id, guard, origin, AuditType.ENTRY_DELETED)
        return await self._database.write(work, lists=True)

    async def remove_expired(self, grace_seconds: float) -> int:
        """Remove the entries that expired at least `grace_seconds` ago (the service's own change, in the
        audit log as such); how many. Looked for on the reading connection first, so a sweep that finds
        nothing writes nothing."""
        cutoff = self._database.clock() - grace_seconds
        due = self._database.read(
            lambda db: db.execute(
                "SELECT id, scope, owner_id FROM entries WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (cutoff,),
            ).fetchall()
        )
        removed = 0
        for row in due:
            work = self._remove_entry(
                row["scope"], row["owner_id"], row["id"], None, SERVICE_ORIGIN, AuditType.ENTRY_EXPIRED
            )
            removed += await self._database.write(work, lists=True) is not None
        return removed
