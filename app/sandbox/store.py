"""The sandbox's state in SQLite: organizations, projects, hashed keys, allowlists, stored responses.

WAL with synchronous=FULL: a write is acknowledged only after it is on disk, so it survives `kill -9`.
Other processes (the dashboard command line) may write the same file; `PRAGMA data_version` tells us
when they did, so no cached allowlist outlives a change.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.netrules import Network, RangeMatcher, parse_entry

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
"""


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


def hash_key(key: str) -> str:
    # Keys are 256-bit random secrets, so a plain SHA-256 is enough (no password stretching needed).
    return hashlib.sha256(key.encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    id: str
    cidr: str
    description: str
    created_at: int

    def as_json(self) -> dict[str, Any]:
        return {
            "object": "ip_allowlist.entry",
            "id": self.id,
            "cidr": self.cidr,
            "description": self.description,
            "created_at": self.created_at,
        }


@dataclass(frozen=True)
class Allowlist:
    scope: str  # "organization" or "project"
    owner_id: str
    enabled: bool
    entries: tuple[Entry, ...]
    matcher: RangeMatcher

    def networks(self) -> list[Network]:
        return [parse_entry(entry.cidr) for entry in self.entries]


@dataclass(frozen=True)
class KeyRecord:
    kind: str
    org_id: str
    project_id: str | None


@dataclass(frozen=True)
class Credentials:
    org_id: str
    project_id: str
    admin_key: str
    api_key: str


class DuplicateEntry(Exception):
    def __init__(self, existing_id: str) -> None:
        super().__init__(existing_id)
        self.existing_id = existing_id


class Store:
    """Thread-safe access to one SQLite file; the server and the dashboard each open their own."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=10000")
        with self._lock:
            self._db.executescript(SCHEMA)
        self._cache: dict[tuple[str, str], Allowlist] = {}
        self._seen_version = -1

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self._lock:
            cursor = self._db.execute(sql, params)
            self._cache.clear()
            return cursor

    def _transaction(self) -> _Transaction:
        return _Transaction(self)

    # -- organizations, projects, keys ------------------------------------------------------------

    def is_empty(self) -> bool:
        with self._lock:
            count: int = self._db.execute("SELECT COUNT(*) FROM orgs").fetchone()[0]
            return count == 0

    def bootstrap(
        self, org_name: str = "Sandbox organization", project_name: str = "Default project"
    ) -> Credentials:
        """Create an organization, a project and a key of each kind; the keys are returned once only."""
        now = int(time.time())
        org_id = new_id("org")
        project_id = new_id("proj")
        with self._transaction() as db:
            db.execute("INSERT INTO orgs VALUES (?, ?, ?)", (org_id, org_name, now))
            db.execute("INSERT INTO projects VALUES (?, ?, ?, ?)", (project_id, org_id, project_name, now))
        return Credentials(
            org_id,
            project_id,
            self.create_key("admin", org_id),
            self.create_key("project", org_id, project_id),
        )

    def create_key(self, kind: str, org_id: str, project_id: str | None = None) -> str:
        # The owner is readable in clear so the gateway can pick the allowlist before validating the key.
        owner = project_id if kind == "project" else org_id
        key = f"sk-{'admin-' if kind == 'admin' else ''}{owner}-{secrets.token_urlsafe(32)}"
        self._write(
            "INSERT INTO api_keys VALUES (?, ?, ?, ?, ?)",
            (hash_key(key), kind, org_id, project_id, int(time.time())),
        )
        return key

    def create_project(self, org_id: str, name: str) -> str:
        project_id = new_id("proj")
        self._write("INSERT INTO projects VALUES (?, ?, ?, ?)", (project_id, org_id, name, int(time.time())))
        return project_id

    def lookup_key(self, key: str) -> KeyRecord | None:
        digest = hash_key(key)
        with self._lock:
            row = self._db.execute("SELECT * FROM api_keys WHERE key_hash = ?", (digest,)).fetchone()
        if row is None or not hmac.compare_digest(row["key_hash"], digest):
            return None
        return KeyRecord(row["kind"], row["org_id"], row["project_id"])

    def orgs(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(row) for row in self._db.execute("SELECT id, name FROM orgs ORDER BY created_at")]

    def project_org(self, project_id: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT org_id FROM projects WHERE id = ?", (project_id,)).fetchone()
        return None if row is None else row[0]

    def projects(self, org_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, name, created_at FROM projects WHERE org_id = ? ORDER BY created_at, id",
                (org_id,),
            )
            return [{"object": "project", **dict(row)} for row in rows]

    # -- allowlists -------------------------------------------------------------------------------

    def allowlist(self, scope: str, owner_id: str) -> Allowlist:
        """The current list, cached until this or any other process writes the database."""
        with self._lock:
            version = self._db.execute("PRAGMA data_version").fetchone()[0]
            if version != self._seen_version:
                self._cache.clear()
                self._seen_version = version
            cached = self._cache.get((scope, owner_id))
            if cached is not None:
                return cached
            row = self._db.execute(
                "SELECT enabled FROM allowlists WHERE scope = ? AND owner_id = ?", (scope, owner_id)
            ).fetchone()
            rows = self._db.execute(
                "SELECT id, cidr, description, created_at FROM entries WHERE scope = ? AND owner_id = ? "
                "ORDER BY created_at, rowid",
                (scope, owner_id),
            ).fetchall()
            entries = tuple(Entry(r["id"], r["cidr"], r["description"], r["created_at"]) for r in rows)
            allowlist = Allowlist(
                scope,
                owner_id,
                bool(row and row[0]),
                entries,
                RangeMatcher(parse_entry(entry.cidr) for entry in entries),
            )
            self._cache[(scope, owner_id)] = allowlist
            return allowlist

    def set_enabled(self, scope: str, owner_id: str, enabled: bool) -> None:
        self._write(
            "INSERT INTO allowlists (scope, owner_id, enabled) VALUES (?, ?, ?) "
            "ON CONFLICT (scope, owner_id) DO UPDATE SET enabled = excluded.enabled",
            (scope, owner_id, int(enabled)),
        )

    def add_entry(self, scope: str, owner_id: str, cidr: str, description: str) -> Entry:
        entry = Entry(new_id("ipal"), cidr, description, int(time.time()))
        with self._transaction() as db:
            existing = db.execute(
                "SELECT id FROM entries WHERE scope = ? AND owner_id = ? AND cidr = ?",
                (scope, owner_id, cidr),
            ).fetchone()
            if existing is not None:
                raise DuplicateEntry(existing[0])
            db.execute(
                "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?)",
                (entry.id, scope, owner_id, cidr, description, entry.created_at),
            )
        return entry

    def count_entries(self, scope: str, owner_id: str) -> int:
        with self._lock:
            count: int = self._db.execute(
                "SELECT COUNT(*) FROM entries WHERE scope = ? AND owner_id = ?", (scope, owner_id)
            ).fetchone()[0]
            return count

    def remove_entry(self, scope: str, owner_id: str, entry_id: str) -> bool:
        cursor = self._write(
            "DELETE FROM entries WHERE scope = ? AND owner_id = ? AND id = ?", (scope, owner_id, entry_id)
        )
        return cursor.rowcount > 0

    def find_entry(self, scope: str, owner_id: str, id_or_cidr: str) -> Entry | None:
        for entry in self.allowlist(scope, owner_id).entries:
            if id_or_cidr in (entry.id, entry.cidr):
                return entry
        return None

    # -- responses --------------------------------------------------------------------------------

    def save_response(self, project_id: str, body: dict[str, Any], history: list[Any]) -> None:
        self._write(
            "INSERT INTO responses VALUES (?, ?, ?, ?, ?)",
            (body["id"], project_id, json.dumps(body), json.dumps(history), body["created_at"]),
        )

    def load_response(self, project_id: str, response_id: str) -> tuple[dict[str, Any], list[Any]] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT body, history FROM responses WHERE id = ? AND project_id = ?",
                (response_id, project_id),
            ).fetchone()
        return None if row is None else (json.loads(row[0]), json.loads(row[1]))


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT under the store's lock, so a read-then-write cannot interleave."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def __enter__(self) -> sqlite3.Connection:
        self._store._lock.acquire()
        self._store._db.execute("BEGIN IMMEDIATE")
        return self._store._db

    def __exit__(self, exc_type: object, *_: object) -> None:
        try:
            self._store._db.execute("ROLLBACK" if exc_type else "COMMIT")
            self._store._cache.clear()
        finally:
            self._store._lock.release()
