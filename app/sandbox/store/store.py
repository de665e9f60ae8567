"""The sandbox's state in SQLite: organizations, projects, hashed keys, allowlists, stored responses.

WAL with synchronous=FULL: a write is acknowledged only after it is on disk, so it survives `kill -9`.
Every write runs on one writer thread with its own connection, which commits the writes waiting together
(writer.py), so the server's event loop never waits on a disk flush (`*_async` methods); the plain methods
wait for it from any other thread. Reads use a second connection. The allowlists live in memory (one
`AllowlistRecord` each, changed in place by the writer); other processes (the dashboard command line) may write
the same file, and a generation number that every allowlist write raises tells us when they did, so no
list in memory outlives a change. Each list also has a version of its own (its ETag), raised by every
change to it; every change is written to the audit log in the same transaction (audit.py). Usage per entry
(hit counts) is counted in memory by the gateway and written in batches (`flush_usage`), never per request.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from app.common.private import private_dir, private_file
from app.netrules import parse_entry
from app.sandbox.contract.responses import AuditQuery, AuditType
from app.sandbox.ids import new_id
from app.sandbox.store import audit
from app.sandbox.store.allowlist_record import AllowlistRecord, EntryRecord, EntryUsage
from app.sandbox.store.audit import DASHBOARD_ORIGIN, SERVICE_ORIGIN, AuditRecord, Origin
from app.sandbox.store.commits import CommitWatch
from app.sandbox.store.writer import BatchWriter

__all__ = ["AllowlistRecord", "Credentials", "DuplicateEntry", "EntryRecord", "KeyRecord", "Origin", "Store"]

T = TypeVar("T")
Guard = Callable[
    [AllowlistRecord], None
]  # looks at the list as it stands before a change; raises to refuse it

SCHEMA = """
CREATE TABLE IF NOT EXISTS orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('admin', 'project')),
  org_id TEXT NOT NULL, project_id TEXT, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS allowlists (
  scope TEXT NOT NULL, owner_id TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, owner_id));
CREATE TABLE IF NOT EXISTS entries (
  id TEXT PRIMARY KEY, scope TEXT NOT NULL, owner_id TEXT NOT NULL, cidr TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, UNIQUE (scope, owner_id, cidr));
CREATE TABLE IF NOT EXISTS responses (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, body TEXT NOT NULL, history TEXT NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS items (
  id TEXT NOT NULL, project_id TEXT NOT NULL, item TEXT NOT NULL, PRIMARY KEY (project_id, id));
CREATE INDEX IF NOT EXISTS responses_by_age ON responses (created_at);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS response_events (
  response_id TEXT PRIMARY KEY, project_id TEXT NOT NULL, events TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, metadata TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS conversation_items (
  conversation_id TEXT NOT NULL, position INTEGER NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (conversation_id, position), UNIQUE (conversation_id, id));
CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
INSERT OR IGNORE INTO meta VALUES ('allowlists_generation', 0);
"""
# Columns added after the first release: a store made before them gets them on open.
_ADDED_COLUMNS = (
    ("entries", "expires_at", "INTEGER"),
    ("entries", "hit_count", "INTEGER NOT NULL DEFAULT 0"),
    ("entries", "last_matched_at", "INTEGER"),
    ("allowlists", "version", "INTEGER NOT NULL DEFAULT 0"),
    ("api_keys", "name", "TEXT NOT NULL DEFAULT ''"),
)
KEY_COLUMNS = "key_hash, kind, org_id, project_id, created_at, name"
ENTRY_COLUMNS = "id, cidr, description, created_at, expires_at, hit_count, last_matched_at"
GENERATION = "SELECT value FROM meta WHERE name = 'allowlists_generation'"
NEXT_GENERATION = "UPDATE meta SET value = value + 1 WHERE name = 'allowlists_generation'"


def hash_key(key: str) -> str:
    # Keys are 256-bit random secrets, so a plain SHA-256 is enough (no password stretching needed).
    return hashlib.sha256(key.encode()).hexdigest()


# The gateway hashes the key of every request; the few keys in use are hashed once (kept in memory only,
# bounded, as the process holds each request's key anyway).
_hash_cached = lru_cache(maxsize=1024)(hash_key)


@dataclass(frozen=True)
class KeyRecord:
    kind: str
    org_id: str
    project_id: str | None
    id: str = ""  # "key_" and the first 16 hex digits of the hash: names the key, reveals nothing of it
    name: str = ""


def key_id(key_hash: str) -> str:
    return f"key_{key_hash[:16]}"


def _migrate(db: sqlite3.Connection) -> None:
    for table, column, kind in _ADDED_COLUMNS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    db.execute(
        "CREATE INDEX IF NOT EXISTS entries_expiring ON entries (expires_at) WHERE expires_at IS NOT NULL"
    )


def _entry(row: sqlite3.Row) -> EntryRecord:
    return EntryRecord(
        row["id"],
        row["cidr"],
        row["description"],
        row["created_at"],
        row["expires_at"],
        row["hit_count"],
        row["last_matched_at"],
    )


def make_key(kind: str, owner_id: str) -> str:
    # The owner is readable in clear so the gateway can pick the allowlist before validating the key.
    return f"sk-{'admin-' if kind == 'admin' else ''}{owner_id}-{secrets.token_urlsafe(32)}"


@dataclass(frozen=True)
class Credentials:
    """The first start's organization, project and keys: made in memory, written out, then committed."""

    org_id: str
    project_id: str
    admin_key: str
    api_key: str

    @classmethod
    def new(cls) -> Credentials:
        org_id, project_id = new_id("org"), new_id("proj")
        return cls(org_id, project_id, make_key("admin", org_id), make_key("project", project_id))


class DuplicateEntry(Exception):
    def __init__(self, existing_id: str) -> None:
        super().__init__(existing_id)
        self.existing_id = existing_id


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=10000")
    return db


class Store:
    """One SQLite file: the server and the dashboard each open their own. Thread-safe."""

    def __init__(
        self,
        path: Path,
        clock: Callable[[], float] = time.time,
        compile_later: Callable[[AllowlistRecord], None] | None = None,
    ) -> None:
        private_dir(path.parent)
        private_file(path)  # prompts, answers, allowlists and key hashes: the owner's only
        self.path = path
        self.clock = clock  # Unix seconds; tests give a clock they move
        self._compile_later = compile_later
        writer_db = _connect(path)  # the writer thread's own, after this set-up
        writer_db.executescript(SCHEMA + audit.SCHEMA)
        _migrate(writer_db)
        # Guards the reading connection and the lists in memory; never held across a disk flush.
        self._lock = threading.RLock()
        self._db = _connect(path)
        self._lists: dict[tuple[str, str], AllowlistRecord] = {}
        self._carried: dict[tuple[str, str], list[EntryUsage]] = {}
        self._keys: dict[str, KeyRecord] = {}  # by hash: the keys found so far
        self._project_orgs: dict[str, str] = {}  # projects never move: the organization of each found
        self._commits = CommitWatch(path)
        self._generation = -1  # the allowlist generation the lists in memory stand for
        self._committing = False  # the writer raised the generation and is committing it
        self._dirty = False  # a write failed after changing memory: read everything again
        self._batch_generation = 0
        self._writer = BatchWriter(writer_db, self)

    def close(self) -> None:
        self.flush_usage()  # what the gateway counted since the last flush, before the writer stops
        self._writer.close()
        with self._lock:
            self._commits.close()
            self._db.close()

    # -- the writer -------------------------------------------------------------------------------

    def _submit(self, work: Callable[[sqlite3.Connection], T], lists: bool = False) -> Future[T]:
        return self._writer.submit(work, lists)

    def _run(self, work: Callable[[sqlite3.Connection], T], lists: bool = False) -> T:
        """Run a write and wait for it to be on disk (from any thread but the event loop's)."""
        return self._submit(work, lists).result()

    async def _run_async(self, work: Callable[[sqlite3.Connection], T], lists: bool = False) -> T:
        return await asyncio.wrap_future(self._submit(work, lists))

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

    # -- allowlists in memory ---------------------------------------------------------------------

    def _forget_lists(self, generation: int) -> None:
        for key, allowlist in self._lists.items():  # usage not yet flushed goes on with the list read again
            self._carried.setdefault(key, []).extend(allowlist.take_usage())
        self._lists.clear()
        self._generation, self._dirty = generation, False

    def _check_generation(self) -> None:
        """Under the lock, on the reading connection: drop the lists if another process changed them.
        Nothing committed since the last check (the WAL-index header says so): nothing to ask."""
        if not self._dirty and self._commits.unchanged():
            return
        self._commits.seen()  # before the query: a commit after this makes the next call ask again
        generation = self._db.execute(GENERATION).fetchone()[0]
        ours = generation == self._generation or (self._committing and generation == self._generation - 1)
        if self._dirty or not ours:
            self._forget_lists(generation)

    def _load(self, db: sqlite3.Connection, scope: str, owner_id: str) -> AllowlistRecord:
        """The list from `db`, kept in memory (the lock is held)."""
        allowlist = self._lists.get((scope, owner_id))
        if allowlist is None:
            row = db.execute(
                "SELECT enabled, version FROM allowlists WHERE scope = ? AND owner_id = ?", (scope, owner_id)
            ).fetchone()
            rows = db.execute(
                f"SELECT {ENTRY_COLUMNS} FROM entries WHERE scope = ? AND owner_id = ? ORDER BY created_at, rowid",
                (scope, owner_id),
            ).fetchall()
            enabled, version = (bool(row[0]), row[1]) if row else (False, 0)
            allowlist = AllowlistRecord(
                scope, owner_id, enabled, map(_entry, rows), self._lock, version, self._compile_later
            )
            allowlist.carry(self._carried.pop((scope, owner_id), ()))
            self._lists[(scope, owner_id)] = allowlist
        return allowlist

    def _bump(self, db: sqlite3.Connection, allowlist: AllowlistRecord, enabled: bool | None = None) -> None:
        """Raise the list's version (and set its switch), in the change's transaction."""
        switch = allowlist.enabled if enabled is None else enabled
        db.execute(
            "INSERT INTO allowlists (scope, owner_id, enabled, version) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (scope, owner_id) DO UPDATE SET enabled = excluded.enabled, version = excluded.version",
            (allowlist.scope, allowlist.owner_id, int(switch), allowlist.version + 1),
        )

    def _now(self) -> int:
        return int(self.clock())

    def allowlist(self, scope: str, owner_id: str) -> AllowlistRecord:
        """The list as it stands: kept in memory, read again only after another process wrote."""
        with self._lock:
            self._check_generation()
            if (scope, owner_id) in self._lists:
                return self._lists[(scope, owner_id)]
            self._db.execute("BEGIN")  # one snapshot for the enabled flag and the entries
            try:
                return self._load(self._db, scope, owner_id)
            finally:
                self._db.execute("COMMIT")

    def allowlists(
        self, org_id: str, project_id: str | None
    ) -> tuple[AllowlistRecord, AllowlistRecord | None]:
        """The organization's list and the project's (None without a project), as `allowlist` gives them:
        for the gateway, which asks on every request, under one lock and one look at the commits."""
        with self._lock:
            self._check_generation()
            organization = self._lists.get(("organization", org_id))
            if organization is None:  # (an empty list is falsy: `is None`, not `or`)
                organization = self.allowlist("organization", org_id)
            if project_id is None:
                return organization, None
            project = self._lists.get(("project", project_id))
            return organization, project if project is not None else self.allowlist("project", project_id)

    def _set_enabled(
        self, scope: str, owner_id: str, enabled: bool, guard: Guard | None, origin: Origin
    ) -> Callable[[sqlite3.Connection], AllowlistRecord]:
        def work(db: sqlite3.Connection) -> AllowlistRecord:
            with self._lock:
                allowlist = self._load(db, scope, owner_id)
                if guard:
                    guard(allowlist)
                kind = AuditType.ENABLED if enabled else AuditType.DISABLED
                before, after = {"enabled": allowlist.enabled}, {"enabled": enabled}
                self._bump(db, allowlist, enabled)
                audit.insert(db, AuditRecord(kind, scope, owner_id, origin, None, before, after), self._now())
                allowlist.enabled = enabled
                allowlist.version += 1
            return allowlist

        return work

    def set_enabled(
        self,
        scope: str,
        owner_id: str,
        enabled: bool,
        guard: Guard | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> AllowlistRecord:
        return self._run(self._set_enabled(scope, owner_id, enabled, guard, origin), lists=True)

    async def set_enabled_async(
        self, scope: str, owner_id: str, enabled: bool, guard: Guard | None, origin: Origin
    ) -> AllowlistRecord:
        return await self._run_async(self._set_enabled(scope, owner_id, enabled, guard, origin), lists=True)

    def _add_entry(
        self,
        scope: str,
        owner_id: str,
        cidr: str,
        description: str,
        expires_at: int | None,
        guard: Guard | None,
        origin: Origin,
    ) -> Callable[[sqlite3.Connection], tuple[EntryRecord, int]]:
        network = parse_entry(cidr)
        entry = EntryRecord(new_id("ipal"), network.with_prefixlen, description, self._now(), expires_at)

        def work(db: sqlite3.Connection) -> tuple[EntryRecord, int]:
            with self._lock:
                allowlist = self._load(db, scope, owner_id)
                if guard:
                    guard(allowlist)
                existing = db.execute(
                    "SELECT id FROM entries WHERE scope = ? AND owner_id = ? AND cidr = ?",
                    (scope, owner_id, entry.cidr),
                ).fetchone()
                if existing is not None:
                    raise DuplicateEntry(existing[0])
                db.execute(
                    "INSERT INTO entries (id, scope, owner_id, cidr, description, created_at, expires_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (entry.id, scope, owner_id, entry.cidr, description, entry.created_at, expires_at),
                )
                self._bump(db, allowlist)
                record = AuditRecord(
                    AuditType.ENTRY_CREATED, scope, owner_id, origin, entry.id, None, entry.state()
                )
                audit.insert(db, record, self._now())
                allowlist.added(entry, network)
                allowlist.version += 1
                return entry, allowlist.version

        return work

    def add_entry(
        self,
        scope: str,
        owner_id: str,
        cidr: str,
        description: str,
        guard: Guard | None = None,
        expires_at: int | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> EntryRecord:
        """Add a canonical CIDR; DuplicateEntry names the entry that already is it."""
        work = self._add_entry(scope, owner_id, cidr, description, expires_at, guard, origin)
        return self._run(work, lists=True)[0]

    async def add_entry_async(
        self,
        scope: str,
        owner_id: str,
        cidr: str,
        description: str,
        expires_at: int | None,
        guard: Guard | None,
        origin: Origin,
    ) -> tuple[EntryRecord, int]:
        """The entry added, and the list's version after it."""
        work = self._add_entry(scope, owner_id, cidr, description, expires_at, guard, origin)
        return await self._run_async(work, lists=True)

    def _update_entry(
        self,
        scope: str,
        owner_id: str,
        entry_id: str,
        expires_at: int | None,
        description: str | None,
        guard: Guard | None,
        origin: Origin,
    ) -> Callable[[sqlite3.Connection], tuple[EntryRecord, int]]:
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
                audit.insert(db, record, self._now())
                allowlist.updated(after)
                allowlist.version += 1
                return after, allowlist.version

        return work

    async def update_entry_async(
        self,
        scope: str,
        owner_id: str,
        entry_id: str,
        expires_at: int | None,
        description: str | None,
        guard: Guard | None,
        origin: Origin,
    ) -> tuple[EntryRecord, int]:
        """The entry with its new expiry (and description), and the list's version after it; KeyError if
        the list has no such entry."""
        work = self._update_entry(scope, owner_id, entry_id, expires_at, description, guard, origin)
        return await self._run_async(work, lists=True)

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
                audit.insert(
                    db, AuditRecord(kind, scope, owner_id, origin, entry_id, state, None), self._now()
                )
                allowlist.removed(entry_id)
                allowlist.version += 1
                return allowlist.version

        return work

    def remove_entry(
        self,
        scope: str,
        owner_id: str,
        entry_id: str,
        guard: Guard | None = None,
        origin: Origin = DASHBOARD_ORIGIN,
    ) -> bool:
        work = self._remove_entry(scope, owner_id, entry_id, guard, origin, AuditType.ENTRY_DELETED)
        return self._run(work, lists=True) is not None

    async def remove_entry_async(
        self, scope: str, owner_id: str, entry_id: str, guard: Guard | None, origin: Origin
    ) -> int | None:
        """The list's version after the removal, or None when the list had no such entry."""
        work = self._remove_entry(scope, owner_id, entry_id, guard, origin, AuditType.ENTRY_DELETED)
        return await self._run_async(work, lists=True)

    # -- upkeep: expired entries, usage -----------------------------------------------------------

    def remove_expired(self, grace_seconds: float) -> int:
        """Remove the entries that expired at least `grace_seconds` ago (the service's own change, in the
        audit log as such); how many. Looked for on the reading connection first, so a sweep that finds
        nothing writes nothing."""
        cutoff = self.clock() - grace_seconds
        with self._lock:
            due = self._db.execute(
                "SELECT id, scope, owner_id FROM entries WHERE expires_at IS NOT NULL AND expires_at <= ?",
                (cutoff,),
            ).fetchall()
        removed = 0
        for row in due:
            work = self._remove_entry(
                row["scope"], row["owner_id"], row["id"], None, SERVICE_ORIGIN, AuditType.ENTRY_EXPIRED
            )
            future = self._submit(work, lists=True)
            removed += future.result() is not None
        return removed

    def flush_usage(self) -> int:
        """Write what the gateway counted since the last flush; how many entries it touched.

        The counters are taken and applied to the lists on the writer, under the lock, so no reader sees
        them counted twice or not at all. A commit that fails loses that batch of counts (usage, not
        state: the lists stay right)."""
        with self._lock:
            if not any(allowlist.has_usage() for allowlist in self._lists.values()) and not self._carried:
                return 0

        def work(db: sqlite3.Connection) -> int:
            with self._lock:
                taken = [(allowlist, allowlist.take_usage()) for allowlist in self._lists.values()]
                carried = [usage for items in self._carried.values() for usage in items]
                self._carried.clear()
                rows = [
                    (usage.hits, usage.last_matched_at, usage.entry_id)
                    for usage in [*carried, *(usage for _, items in taken for usage in items)]
                ]
                db.executemany(
                    "UPDATE entries SET hit_count = hit_count + ?, "
                    "last_matched_at = MAX(COALESCE(last_matched_at, 0), ?) WHERE id = ?",
                    rows,
                )
                for allowlist, items in taken:
                    allowlist.flushed(items)
                return len(rows)

        return self._run(work)

    # -- the audit log ----------------------------------------------------------------------------

    async def record_async(self, record: AuditRecord) -> None:
        """Record a refused change (a change made is recorded with it, in its own transaction)."""
        now = self._now()
        await self._run_async(lambda db: audit.insert(db, record, now))

    def audit_page(self, org_id: str, query: AuditQuery) -> dict[str, Any]:
        with self._lock:
            return audit.page(self._db, org_id, query)

    def find_entry(self, scope: str, owner_id: str, id_or_cidr: str) -> EntryRecord | None:
        return self.allowlist(scope, owner_id).find(id_or_cidr)

    # -- organizations, projects, keys ------------------------------------------------------------

    def is_empty(self) -> bool:
        with self._lock:
            return bool(self._db.execute("SELECT COUNT(*) FROM orgs").fetchone()[0] == 0)

    def bootstrap(
        self,
        credentials: Credentials | None = None,
        org_name: str = "Sandbox organization",
        project_name: str = "Default project",
    ) -> Credentials:
        """Commit an organization, a project and a key of each kind in one transaction (all or nothing).
        Callers that must keep the keys write them out first: they are stored hashed only."""
        creds = credentials or Credentials.new()
        now = int(time.time())

        def work(db: sqlite3.Connection) -> Credentials:
            db.execute("INSERT INTO orgs VALUES (?, ?, ?)", (creds.org_id, org_name, now))
            db.execute(
                "INSERT INTO projects VALUES (?, ?, ?, ?)",
                (creds.project_id, creds.org_id, project_name, now),
            )
            for key, kind, project_id, name in (
                (creds.admin_key, "admin", None, "First admin key"),
                (creds.api_key, "project", creds.project_id, "First project key"),
            ):
                db.execute(
                    f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                    (hash_key(key), kind, creds.org_id, project_id, now, name),
                )
            return creds

        return self._run(work)

    def create_key(self, kind: str, org_id: str, project_id: str | None = None, name: str = "") -> str:
        """A new key (returned once: the store keeps its hash); `name` is what the audit log shows."""
        key = make_key(kind, project_id if kind == "project" and project_id else org_id)
        row = (hash_key(key), kind, org_id, project_id, int(time.time()), name)
        insert = f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
        self._run(lambda db: db.execute(insert, row))
        return key

    def create_project(self, org_id: str, name: str) -> str:
        project_id = new_id("proj")
        row = (project_id, org_id, name, int(time.time()))
        self._run(lambda db: db.execute("INSERT INTO projects VALUES (?, ?, ?, ?)", row))
        return project_id

    def lookup_key(self, key: str) -> KeyRecord | None:
        """The key's record. Keys are never changed nor revoked, so one found is kept in memory by its hash
        (a query per request was a large part of the gateway's cost); an unknown one is asked every time,
        as the dashboard may create it meanwhile."""
        digest = _hash_cached(key)
        known = self._keys.get(digest)
        if known is not None:
            return known
        with self._lock:
            row = self._db.execute("SELECT * FROM api_keys WHERE key_hash = ?", (digest,)).fetchone()
        if row is None or not hmac.compare_digest(row["key_hash"], digest):
            return None
        record = KeyRecord(row["kind"], row["org_id"], row["project_id"], key_id(digest), row["name"])
        self._keys[digest] = record
        return record

    def orgs(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(row) for row in self._db.execute("SELECT id, name FROM orgs ORDER BY created_at")]

    def project_org(self, project_id: str) -> str | None:
        known = self._project_orgs.get(project_id)
        if known is not None:
            return known
        with self._lock:
            row = self._db.execute("SELECT org_id FROM projects WHERE id = ?", (project_id,)).fetchone()
        if row is None:
            return None
        self._project_orgs[project_id] = str(row[0])
        return str(row[0])

    def projects(self, org_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, created_at FROM projects WHERE org_id = ? ORDER BY created_at, id",
                (org_id,),
            )
            return [{"object": "project", **dict(row)} for row in rows]

    # -- for the modules that keep their own tables (conversation_store.py, background.py) ------------

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run a read on the reading connection (one at a time; SQLite reads are short)."""
        with self._lock:
            return work(self._db)

    async def write_async(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run a write on the writer thread; resolves once it is on disk."""
        return await self._run_async(work)

    def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Waits for the disk: on the server's event loop use write_async."""
        return self._run(work)

    # -- responses --------------------------------------------------------------------------------

    def _save_response(
        self, project_id: str, body: dict[str, Any], history: Any, items: list[dict[str, Any]] | None = None
    ) -> Callable[[sqlite3.Connection], None]:
        row = (body["id"], project_id, json.dumps(body), json.dumps(history), body["created_at"])
        item_rows = [(item["id"], project_id, json.dumps(item)) for item in items or [] if "id" in item]

        def work(db: sqlite3.Connection) -> None:
            # An upsert: a background response is written when queued, then again when it ends.
            db.execute(
                "INSERT INTO responses VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE "
                "SET body = excluded.body, history = excluded.history",
                row,
            )
            db.executemany("INSERT OR REPLACE INTO items VALUES (?, ?, ?)", item_rows)

        return work

    def save_response(
        self, project_id: str, body: dict[str, Any], history: Any, items: list[dict[str, Any]] | None = None
    ) -> None:
        """Waits for the disk: on the server's event loop use save_response_async. `items`: the turn's input
        and output items, kept by id for `item_reference` inputs."""
        self._run(self._save_response(project_id, body, history, items))

    async def save_response_async(
        self, project_id: str, body: dict[str, Any], history: Any, items: list[dict[str, Any]] | None = None
    ) -> None:
        await self._run_async(self._save_response(project_id, body, history, items))

    def load_items(self, project_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The stored items of these ids (the ones held; an id not held is simply absent)."""
        found: dict[str, dict[str, Any]] = {}
        with self._lock:
            for item_id in dict.fromkeys(ids):
                row = self._db.execute(
                    "SELECT item FROM items WHERE project_id = ? AND id = ?", (project_id, item_id)
                ).fetchone()
                if row is not None:
                    found[item_id] = json.loads(row[0])
        return found

    async def prune_responses_async(self, created_before: float, batch: int = 500) -> int:
        """Delete up to `batch` stored responses made before `created_before` (epoch seconds), oldest first;
        returns how many. On the writer thread, in the same batches as requests' writes: a small batch
        keeps each transaction short, so requests never wait behind a large backlog."""

        def work(db: sqlite3.Connection) -> int:
            return db.execute(
                "DELETE FROM responses WHERE rowid IN (SELECT rowid FROM responses WHERE created_at < ? "
                "ORDER BY created_at LIMIT ?)",
                (int(created_before), batch),
            ).rowcount

        return await self._run_async(work)

    def load_response(self, project_id: str, response_id: str) -> tuple[dict[str, Any], Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body, history FROM responses WHERE id = ? AND project_id = ?",
                (response_id, project_id),
            ).fetchone()
        return None if row is None else (json.loads(row[0]), json.loads(row[1]))

    def delete_response(self, project_id: str, response_id: str) -> bool:
        """Waits for the disk: on the server's event loop use delete_response_async."""
        return self._run(self._delete_response(project_id, response_id))

    async def delete_response_async(self, project_id: str, response_id: str) -> bool:
        return await self._run_async(self._delete_response(project_id, response_id))

    @staticmethod
    def _delete_response(project_id: str, response_id: str) -> Callable[[sqlite3.Connection], bool]:
        def work(db: sqlite3.Connection) -> bool:
            deleted = db.execute(
                "DELETE FROM responses WHERE id = ? AND project_id = ?", (response_id, project_id)
            ).rowcount
            if deleted:  # a background response's kept events go with it
                db.execute("DELETE FROM response_events WHERE response_id = ?", (response_id,))
            return bool(deleted)

        return work
