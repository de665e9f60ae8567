"""A store's tables are made in one transaction: whole or not at all, and with one commit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.sandbox.store import schema


def test_a_new_store_is_made_in_one_transaction(tmp_path: Path) -> None:
    """Every table and added column inside one transaction: each statement on its own was a commit flushed to
    disk (~40 at every first start)."""
    db = schema.connect(tmp_path / "s.sqlite3")
    made: list[tuple[str, bool]] = []
    db.set_trace_callback(
        lambda statement: made.append((statement.lstrip().split(" ", 1)[0], db.in_transaction))
    )
    schema.create_tables(db)
    db.set_trace_callback(None)
    changes = [inside for verb, inside in made if verb.upper() in ("CREATE", "ALTER")]
    assert len(changes) > 30 and all(changes)
    assert not db.in_transaction  # committed
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"orgs", "api_keys", "entries", "audit_log", "usage_buckets"} <= tables
    db.close()


def test_a_store_whose_making_fails_is_left_empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step that fails (a disk fault; here a column for a table that does not exist) leaves no table behind:
    the next start makes the store again from nothing, not from half of it."""
    failing = (*schema._ADDED_COLUMNS, ("no_such_table", "x", "TEXT"))
    monkeypatch.setattr(schema, "_ADDED_COLUMNS", failing)
    db = schema.connect(tmp_path / "s.sqlite3")
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        schema.create_tables(db)
    assert not db.in_transaction
    assert db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    db.close()
