"""A store's tables are made in one transaction: whole or not at all, and with one commit. A new store is made
at the latest version in one script, and has exactly the schema an older store gets from the migrations."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from app.sandbox.store import schema

# The first release's tables that have gained columns since (schema._ADDED_COLUMNS), as it made them.
FIRST_RELEASE = """
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('admin', 'project')),
  org_id TEXT NOT NULL, project_id TEXT, created_at INTEGER NOT NULL);
CREATE TABLE allowlists (
  scope TEXT NOT NULL, owner_id TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, owner_id));
CREATE TABLE entries (
  id TEXT PRIMARY KEY, scope TEXT NOT NULL, owner_id TEXT NOT NULL, cidr TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, UNIQUE (scope, owner_id, cidr));
CREATE TABLE items (
  id TEXT NOT NULL, project_id TEXT NOT NULL, item TEXT NOT NULL, PRIMARY KEY (project_id, id));
"""


def first_release_store(path: Path) -> sqlite3.Connection:
    db = schema.connect(path)
    db.executescript(FIRST_RELEASE)
    return db


def statements(db: sqlite3.Connection) -> list[tuple[str, bool]]:
    """Start recording the verbs of the statements run on `db`, each with whether a transaction was open."""
    made: list[tuple[str, bool]] = []
    db.set_trace_callback(
        lambda statement: made.append((statement.lstrip().split(" ", 1)[0].upper(), db.in_transaction))
    )
    return made


def described(db: sqlite3.Connection) -> dict[str, object]:
    """Everything SQLite keeps of a schema: sqlite_master (its SQL with spacing evened out) and each table's
    columns as SQLite reads them (name, type, not null, default, primary key, hidden)."""
    master = {
        name: (kind, table, re.sub(r"\s+", " ", sql or ""))
        for kind, name, table, sql in db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    }
    columns = {
        name: db.execute(f"PRAGMA table_xinfo({name})").fetchall()
        for name, (kind, _table, _sql) in master.items()
        if kind == "table"
    }
    return {"master": master, "columns": columns}


def test_a_new_store_is_made_in_one_transaction(tmp_path: Path) -> None:
    """Every table and index inside one transaction: each statement on its own was a commit flushed to disk
    (~40 at every first start)."""
    db = schema.connect(tmp_path / "s.sqlite3")
    made = statements(db)
    schema.create_tables(db)
    db.set_trace_callback(None)
    changes = [inside for verb, inside in made if verb in ("CREATE", "ALTER")]
    assert len(changes) > 30 and all(changes)
    assert not db.in_transaction  # committed
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"orgs", "api_keys", "entries", "audit_log", "usage_buckets"} <= tables
    db.close()


def test_a_new_store_is_made_at_the_latest_version_without_migrating(tmp_path: Path) -> None:
    """Nothing to bring up to date: no column looked for or added one at a time (each ALTER makes SQLite read
    the whole schema again, ~3 ms of CPU at every first start)."""
    db = schema.connect(tmp_path / "s.sqlite3")
    made = statements(db)
    schema.create_tables(db)
    db.set_trace_callback(None)
    assert not [verb for verb, _inside in made if verb in ("ALTER", "PRAGMA")]
    assert {"entries_expiring", "items_by_response"} <= {
        row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    }
    db.close()


def test_a_new_store_has_the_schema_the_migrations_give_an_old_one(tmp_path: Path) -> None:
    """The first release's store brought up to date and a store made new: the same sqlite_master, the same
    columns in the same order, the same indexes."""
    new = schema.connect(tmp_path / "new.sqlite3")
    schema.create_tables(new)
    old = first_release_store(tmp_path / "old.sqlite3")
    made = statements(old)
    schema.create_tables(old)
    old.set_trace_callback(None)
    assert len([verb for verb, _inside in made if verb == "ALTER"]) == len(schema._ADDED_COLUMNS)
    assert described(old) == described(new)
    schema.create_tables(old)  # opened again: nothing changes
    assert described(old) == described(new)
    new.close()
    old.close()


def test_an_old_store_is_brought_up_to_date_in_one_transaction(tmp_path: Path) -> None:
    db = first_release_store(tmp_path / "s.sqlite3")
    made = statements(db)
    schema.create_tables(db)
    db.set_trace_callback(None)
    changes = [inside for verb, inside in made if verb in ("CREATE", "ALTER")]
    assert len(changes) > 30 and all(changes)
    assert not db.in_transaction
    db.close()


def test_a_store_whose_making_fails_is_left_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step that fails (a disk fault; here an index on a table that does not exist) leaves no table behind:
    the next start makes the store again from nothing, not from half of it."""
    failing = (*schema._ADDED_INDEXES, "CREATE INDEX no_such_index ON no_such_table (x)")
    monkeypatch.setattr(schema, "_ADDED_INDEXES", failing)
    db = schema.connect(tmp_path / "s.sqlite3")
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        schema.create_tables(db)
    assert not db.in_transaction
    assert db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    db.close()


def test_an_old_store_whose_update_fails_is_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A migration step that fails (here a column for a table that does not exist) leaves the old store as
    it was: no table or column of the update half made."""
    failing = (*schema._ADDED_COLUMNS, ("no_such_table", "x", "TEXT"))
    monkeypatch.setattr(schema, "_ADDED_COLUMNS", failing)
    db = first_release_store(tmp_path / "s.sqlite3")
    before = described(db)
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        schema.create_tables(db)
    assert not db.in_transaction
    assert described(db) == before
    db.close()
