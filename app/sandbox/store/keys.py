"""API keys: made here, shown once, stored as their SHA-256 only, looked up by the gateway on every request.

A key's use (when last, how many requests) is counted in memory by the gateway and written in batches by
the keeper (key_usage.py), as the allowlist entries' hit counts are: never a write per request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from app.sandbox.store.audit import AuditRecord, insert
from app.sandbox.store.database import Database

KEY_COLUMNS = "key_hash, kind, org_id, project_id, created_at, name"
INSERT_KEY = f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"
INSERT_FULL_KEY = (
    f"INSERT INTO api_keys ({KEY_COLUMNS}, redacted_value, owner, permissions, service_account_id) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
ALL = "all"  # the permissions of a key that may call every endpoint its kind may
# The sandbox has no user accounts: keys made with an admin key or the dashboard belong to its one owner.
SANDBOX_OWNER: dict[str, Any] = {
    "type": "user",
    "object": "organization.user",
    "id": "user_sandbox",
    "name": "Sandbox owner",
    "role": "owner",
}


def hash_key(key: str) -> str:
    # Keys are 256-bit random secrets, so a plain SHA-256 is enough (no password stretching needed).
    return hashlib.sha256(key.encode()).hexdigest()


# The gateway hashes the key of every request; the few keys in use are hashed once (kept in memory only,
# bounded, as the process holds each request's key anyway).
_hash_cached = lru_cache(maxsize=1024)(hash_key)


def make_key(kind: str, owner_id: str) -> str:
    # The owner is readable in clear so the gateway can pick the allowlist before validating the key.
    return f"sk-{'admin-' if kind == 'admin' else ''}{owner_id}-{secrets.token_urlsafe(32)}"


def redact(key: str) -> str:
    """What a list shows of a key: its kind and its last four characters (the owner part is in clear anyway)."""
    return f"{key[:8]}...{key[-4:]}"


def key_id(key_hash: str) -> str:
    return f"key_{key_hash[:16]}"


@dataclass(frozen=True)
class KeyRecord:
    kind: str
    org_id: str
    project_id: str | None
    id: str = ""  # "key_" and the first 16 hex digits of the hash: names the key, reveals nothing of it
    name: str = ""
    # "all", "read_only", or the endpoint groups it may call (docs/contract.md, "Keys")
    permissions: str | tuple[str, ...] = ALL
    key_hash: str = field(default="", repr=False)


def permissions_of(text: str) -> str | tuple[str, ...]:
    return text if text in (ALL, "read_only") or not text.startswith("[") else tuple(json.loads(text))


def _record(row: sqlite3.Row) -> KeyRecord:
    digest = row["key_hash"]
    permissions = permissions_of(row["permissions"])
    return KeyRecord(
        row["kind"], row["org_id"], row["project_id"], key_id(digest), row["name"], permissions, digest
    )


class Keys:
    """The keys of one store, and their use as the gateway counts it."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._known: dict[str, KeyRecord] = {}  # by hash: the keys found so far
        self._revoked: set[str] = set()  # hashes deleted by this process, never cached again
        self._lock = threading.Lock()  # a lookup caching a key and a delete evicting it, one at a time
        # By hash: [requests, last use] since the last flush (key_usage.py writes them).
        self.usage: dict[str, list[int]] = {}

    async def create(
        self,
        kind: str,
        org_id: str,
        project_id: str | None = None,
        name: str = "",
        owner: dict[str, Any] | None = None,
        permissions: str | Sequence[str] = ALL,
        audit: AuditRecord | None = None,
    ) -> str:
        """A new key (returned once: the store keeps its hash); `name` is what the lists and the audit log
        show, `owner` the object the Admin API shows as its owner. `audit` (the key's id filled in here) is
        written in the same transaction."""
        key = make_key(kind, project_id if kind == "project" and project_id else org_id)
        now = self._database.now()

        def work(db: sqlite3.Connection) -> None:
            insert_key(db, key, kind, org_id, project_id, name, owner or SANDBOX_OWNER, permissions)
            if audit is not None:
                insert(db, replace(audit, entry_id=key_id(hash_key(key))), now)

        await self._database.write(work)
        return key

    async def delete(self, key_hash: str, audit: AuditRecord) -> bool:
        """Delete a key and refuse it from the next request on; False when it was gone already."""
        now = self._database.now()

        def work(db: sqlite3.Connection) -> bool:
            deleted = db.execute("DELETE FROM api_keys WHERE key_hash = ?", (key_hash,)).rowcount > 0
            if deleted:
                insert(db, audit, now)
            return deleted

        deleted = await self._database.write(work)
        self.forget([key_hash])
        return deleted

    def lookup(self, key: str) -> KeyRecord | None:
        """The key's record. One found is kept in memory by its hash (a query per request would be a large
        part of the gateway's cost) until this store deletes it; an unknown one is asked every time, as the
        dashboard may create it meanwhile."""
        digest = _hash_cached(key)
        known = self._known.get(digest)
        if known is not None:
            return known
        row = self._database.read(
            lambda db: db.execute("SELECT * FROM api_keys WHERE key_hash = ?", (digest,)).fetchone()
        )
        if row is None or not hmac.compare_digest(row["key_hash"], digest):
            return None
        record = _record(row)
        with self._lock:
            if digest in self._revoked:  # deleted while it was read: not cached, not admitted
                return None
            self._known[digest] = record
        return record

    def used(self, record: KeyRecord, now: int) -> None:
        """Count one request made with the key (on the gateway's path: two dict operations)."""
        counted = self.usage.get(record.key_hash)
        if counted is None:
            self.usage[record.key_hash] = [1, now]
        else:
            counted[0] += 1
            counted[1] = now

    def rows(self, where: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
        """The keys matching `where`, oldest first, with the use counted since the last flush added."""
        query = f"SELECT * FROM api_keys WHERE {where} ORDER BY created_at, rowid"
        rows = self._database.read(lambda db: [dict(row) for row in db.execute(query, args)])
        for row in rows:
            pending = self.usage.get(row["key_hash"])
            if pending is not None:
                row["request_count"] += pending[0]
                row["last_used_at"] = max(row["last_used_at"] or 0, pending[1])
            row["id"] = key_id(row["key_hash"])
            row["permissions"] = permissions_of(row["permissions"])
            row["owner"] = json.loads(row["owner"]) if row["owner"] else None
        return rows

    def find(self, key_id_: str, where: str, args: tuple[Any, ...]) -> dict[str, Any] | None:
        """One key by its id among those matching `where`."""
        if not key_id_.startswith("key_") or len(key_id_) != 20:
            return None
        found = self.rows(f"{where} AND substr(key_hash, 1, 16) = ?", (*args, key_id_[4:]))
        return found[0] if found else None

    def forget(self, digests: list[str]) -> None:
        """Refuse these keys from the next request on (called once their rows are deleted)."""
        with self._lock:
            self._revoked.update(digests)
            for digest in digests:
                self._known.pop(digest, None)
                self.usage.pop(digest, None)


def insert_key(
    db: sqlite3.Connection,
    key: str,
    kind: str,
    org_id: str,
    project_id: str | None,
    name: str,
    owner: dict[str, Any] | None,
    permissions: str | Sequence[str],
    service_account_id: str | None = None,
) -> None:
    """Insert one key's row (on the writer, inside the caller's transaction)."""
    shown_permissions = permissions if isinstance(permissions, str) else json.dumps(sorted(permissions))
    owner_text = json.dumps(owner, separators=(",", ":")) if owner else ""
    row = (hash_key(key), kind, org_id, project_id, int(time.time()), name, redact(key), owner_text)
    db.execute(INSERT_FULL_KEY, (*row, shown_permissions, service_account_id))
