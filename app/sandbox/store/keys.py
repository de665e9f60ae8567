"""API keys: made here, shown once, stored as their SHA-256 only, looked up by the gateway on every request."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from functools import lru_cache

from app.sandbox.store.database import Database

KEY_COLUMNS = "key_hash, kind, org_id, project_id, created_at, name"
INSERT_KEY = f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"


def hash_key(key: str) -> str:
    # Keys are 256-bit random secrets, so a plain SHA-256 is enough (no password stretching needed).
    return hashlib.sha256(key.encode()).hexdigest()


# The gateway hashes the key of every request; the few keys in use are hashed once (kept in memory only,
# bounded, as the process holds each request's key anyway).
_hash_cached = lru_cache(maxsize=1024)(hash_key)


def make_key(kind: str, owner_id: str) -> str:
    # The owner is readable in clear so the gateway can pick the allowlist before validating the key.
    return f"sk-{'admin-' if kind == 'admin' else ''}{owner_id}-{secrets.token_urlsafe(32)}"


def key_id(key_hash: str) -> str:
    return f"key_{key_hash[:16]}"


@dataclass(frozen=True)
class KeyRecord:
    kind: str
    org_id: str
    project_id: str | None
    id: str = ""  # "key_" and the first 16 hex digits of the hash: names the key, reveals nothing of it
    name: str = ""


class Keys:
    """The keys of one store."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._known: dict[str, KeyRecord] = {}  # by hash: the keys found so far

    async def create(self, kind: str, org_id: str, project_id: str | None = None, name: str = "") -> str:
        """A new key (returned once: the store keeps its hash); `name` is what the audit log shows."""
        key = make_key(kind, project_id if kind == "project" and project_id else org_id)
        row = (hash_key(key), kind, org_id, project_id, int(time.time()), name)
        await self._database.write(lambda db: db.execute(INSERT_KEY, row))
        return key

    def lookup(self, key: str) -> KeyRecord | None:
        """The key's record. Keys are never changed nor revoked, so one found is kept in memory by its hash
        (a query per request would be a large part of the gateway's cost); an unknown one is asked every time,
        as the dashboard may create it meanwhile."""
        digest = _hash_cached(key)
        known = self._known.get(digest)
        if known is not None:
            return known
        row = self._database.read(
            lambda db: db.execute("SELECT * FROM api_keys WHERE key_hash = ?", (digest,)).fetchone()
        )
        if row is None or not hmac.compare_digest(row["key_hash"], digest):
            return None
        record = KeyRecord(row["kind"], row["org_id"], row["project_id"], key_id(digest), row["name"])
        self._known[digest] = record
        return record
