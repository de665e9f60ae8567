"""The allowlists' rows in SQLite: a list's switch and version, and its entries, read and written inside the
caller's transaction (allowlists.py keeps the lists in memory and orders the changes)."""

from __future__ import annotations

import sqlite3

from app.sandbox.store.entry import EntryRecord

ENTRY_COLUMNS = "id, cidr, description, created_at, expires_at, hit_count, last_matched_at"


class DuplicateEntry(Exception):
    def __init__(self, existing_id: str) -> None:
        super().__init__(existing_id)
        self.existing_id = existing_id


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


def read_list(db: sqlite3.Connection, scope: str, owner_id: str) -> tuple[bool, int, list[EntryRecord]]:
    """A list as stored: whether it is on, its version, its entries in the order they were added."""
    row = db.execute(
        "SELECT enabled, version FROM allowlists WHERE scope = ? AND owner_id = ?", (scope, owner_id)
    ).fetchone()
    rows = db.execute(
        f"SELECT {ENTRY_COLUMNS} FROM entries WHERE scope = ? AND owner_id = ? ORDER BY created_at, rowid",
        (scope, owner_id),
    ).fetchall()
    enabled, version = (bool(row[0]), row[1]) if row else (False, 0)
    return enabled, version, [_entry(row) for row in rows]


def write_list(db: sqlite3.Connection, scope: str, owner_id: str, enabled: bool, version: int) -> None:
    """Store a list's switch and version (the row is made with the list's first change)."""
    db.execute(
        "INSERT INTO allowlists (scope, owner_id, enabled, version) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (scope, owner_id) DO UPDATE SET enabled = excluded.enabled, version = excluded.version",
        (scope, owner_id, int(enabled), version),
    )


def insert_entry(db: sqlite3.Connection, scope: str, owner_id: str, entry: EntryRecord) -> None:
    """Write a new entry to a list; DuplicateEntry names the entry that already is its CIDR."""
    existing = db.execute(
        "SELECT id FROM entries WHERE scope = ? AND owner_id = ? AND cidr = ?", (scope, owner_id, entry.cidr)
    ).fetchone()
    if existing is not None:
        raise DuplicateEntry(existing[0])
    db.execute(
        "INSERT INTO entries (id, scope, owner_id, cidr, description, created_at, expires_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (entry.id, scope, owner_id, entry.cidr, entry.description, entry.created_at, entry.expires_at),
    )
