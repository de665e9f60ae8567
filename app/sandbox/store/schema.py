"""The store's tables, the columns added since the first release, and how a connection is opened.

The tables below are as the latest version has them: a new store is made from them in one script, and a
store made before a column gets that column on open (`_ADDED_COLUMNS`, `migrate`). Both give one schema
(tests/sandbox/test_store_schema.py compares them).

WAL with synchronous=FULL: a write is acknowledged only after it is on disk, so it survives `kill -9`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), name TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS api_keys (
  key_hash TEXT PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('admin', 'project')),
  org_id TEXT NOT NULL, project_id TEXT, created_at INTEGER NOT NULL, name TEXT NOT NULL DEFAULT '',
  redacted_value TEXT NOT NULL DEFAULT 'sk-...', owner TEXT NOT NULL DEFAULT '',
  permissions TEXT NOT NULL DEFAULT 'all', service_account_id TEXT, last_used_at INTEGER,
  request_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS allowlists (
  scope TEXT NOT NULL, owner_id TEXT NOT NULL, enabled INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (scope, owner_id));
CREATE TABLE IF NOT EXISTS entries (
  id TEXT PRIMARY KEY, scope TEXT NOT NULL, owner_id TEXT NOT NULL, cidr TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, expires_at INTEGER,
  hit_count INTEGER NOT NULL DEFAULT 0, last_matched_at INTEGER, UNIQUE (scope, owner_id, cidr));
CREATE TABLE IF NOT EXISTS responses (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, body TEXT NOT NULL, history TEXT NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS items (
  id TEXT NOT NULL, project_id TEXT NOT NULL, item TEXT NOT NULL, response_id TEXT,
  PRIMARY KEY (project_id, id));
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
CREATE TABLE IF NOT EXISTS service_accounts (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, project_id TEXT NOT NULL, name TEXT NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS prompts (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, latest INTEGER NOT NULL,
  created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS prompt_versions (
  prompt_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (prompt_id, version));
INSERT OR IGNORE INTO meta VALUES ('allowlists_generation', 0);
"""
# Who the allowlists refused and admitted, per source (traffic.py).
TRAFFIC_SCHEMA = """
CREATE TABLE IF NOT EXISTS refused (
  org_id TEXT NOT NULL, project_id TEXT NOT NULL, list TEXT NOT NULL, source_ip TEXT NOT NULL,
  minute INTEGER NOT NULL, count INTEGER NOT NULL, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
  path TEXT NOT NULL, PRIMARY KEY (org_id, project_id, list, source_ip, minute));
CREATE INDEX IF NOT EXISTS refused_by_time ON refused (org_id, last_seen);
CREATE TABLE IF NOT EXISTS admitted (
  scope TEXT NOT NULL, owner_id TEXT NOT NULL, source_ip TEXT NOT NULL, day INTEGER NOT NULL,
  hits INTEGER NOT NULL, last_seen INTEGER NOT NULL, PRIMARY KEY (scope, owner_id, source_ip, day));
CREATE INDEX IF NOT EXISTS admitted_by_day ON admitted (day);
"""
AUDIT_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, org_id TEXT NOT NULL, project_id TEXT, type TEXT NOT NULL,
  created_at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS audit_log_by_org ON audit_log (org_id, seq);
"""
# Mutual TLS: the organizations' CA certificates and where each is active (tables added, nothing changed).
CERTIFICATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS certificates (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, pem TEXT NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS certificate_activations (
  certificate_id TEXT NOT NULL, scope TEXT NOT NULL, owner_id TEXT NOT NULL,
  PRIMARY KEY (certificate_id, scope, owner_id));
"""
# Usage in minute, hour and day buckets (usage.py), `width` in seconds; the projects' rate limits, the
# monthly budgets and the alerts they raised.
USAGE_SCHEMA = """
CREATE TABLE IF NOT EXISTS usage_buckets (
  org_id TEXT NOT NULL, width INTEGER NOT NULL, start INTEGER NOT NULL, project_id TEXT NOT NULL,
  api_key_id TEXT NOT NULL, model TEXT NOT NULL, num_model_requests INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL, input_cached_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
  output_reasoning_tokens INTEGER NOT NULL,
  PRIMARY KEY (org_id, width, start, project_id, api_key_id, model)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS refused_buckets (
  org_id TEXT NOT NULL, width INTEGER NOT NULL, start INTEGER NOT NULL, project_id TEXT NOT NULL,
  reason TEXT NOT NULL, num_requests INTEGER NOT NULL,
  PRIMARY KEY (org_id, width, start, project_id, reason)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rate_limits (
  project_id TEXT NOT NULL, model TEXT NOT NULL, max_requests_per_1_minute INTEGER,
  max_tokens_per_1_minute INTEGER, PRIMARY KEY (project_id, model));
CREATE TABLE IF NOT EXISTS budgets (
  org_id TEXT NOT NULL, project_id TEXT NOT NULL, monthly_usd REAL NOT NULL, thresholds TEXT NOT NULL,
  hard_limit INTEGER NOT NULL, PRIMARY KEY (org_id, project_id));
CREATE TABLE IF NOT EXISTS budget_alerts (
  org_id TEXT NOT NULL, project_id TEXT NOT NULL, month TEXT NOT NULL, threshold INTEGER NOT NULL,
  at INTEGER NOT NULL, spent_usd REAL NOT NULL, PRIMARY KEY (org_id, project_id, month, threshold));
"""
# Columns added after the first release (in SCHEMA already): a store made before them gets them on open.
_ADDED_COLUMNS = (
    ("entries", "expires_at", "INTEGER"),
    ("entries", "hit_count", "INTEGER NOT NULL DEFAULT 0"),
    ("entries", "last_matched_at", "INTEGER"),
    ("allowlists", "version", "INTEGER NOT NULL DEFAULT 0"),
    ("api_keys", "name", "TEXT NOT NULL DEFAULT ''"),
    ("items", "response_id", "TEXT"),  # the latest stored response that holds the item: retention's link
    ("api_keys", "redacted_value", "TEXT NOT NULL DEFAULT 'sk-...'"),
    ("api_keys", "owner", "TEXT NOT NULL DEFAULT ''"),
    ("api_keys", "permissions", "TEXT NOT NULL DEFAULT 'all'"),
    ("api_keys", "service_account_id", "TEXT"),
    ("api_keys", "last_used_at", "INTEGER"),
    ("api_keys", "request_count", "INTEGER NOT NULL DEFAULT 0"),
)
# The indexes over added columns: made once those columns exist (after `migrate` adds them to an old store).
_ADDED_INDEXES = (
    "CREATE INDEX IF NOT EXISTS entries_expiring ON entries (expires_at) WHERE expires_at IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS items_by_response ON items (response_id)",
)


def connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
    db.row_factory = sqlite3.Row
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=10000")
    return db


def migrate(db: sqlite3.Connection) -> None:
    added: set[tuple[str, str]] = set()
    for table, column, kind in _ADDED_COLUMNS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            added.add((table, column))
    if ("items", "response_id") in added:
        _link_items(db)
    for statement in _ADDED_INDEXES:
        db.execute(statement)


def _link_items(db: sqlite3.Connection) -> None:
    """Items kept before they named their response: each gets the latest response holding it (its input items
    and its output), so retention deletes them with it; an item no response holds goes now."""
    rows = db.execute("SELECT id, project_id, body, history FROM responses ORDER BY created_at").fetchall()
    for response_id, project_id, body, history in rows:
        held = [*json.loads(history).get("input_items", ()), *json.loads(body).get("output", ())]
        db.executemany(
            "UPDATE items SET response_id = ? WHERE project_id = ? AND id = ?",
            [
                (response_id, project_id, item["id"])
                for item in held
                if isinstance(item, dict) and "id" in item
            ],
        )
    db.execute("DELETE FROM items WHERE response_id IS NULL")


def create_tables(db: sqlite3.Connection) -> None:
    """Every table, and the columns a store made before them lacks (on the writer's connection, at open).

    In one transaction: a store is made (or brought up to date) whole or not at all, and with one commit. Each
    statement on its own was a commit flushed to disk (synchronous=FULL), ~40 for a new store: ~9 ms of CPU
    and ~80 ms of waiting at every first start. A new store is made at the latest version in the script
    alone: `migrate` looking for each added column and adding it (each ALTER makes SQLite read its whole
    schema again) was ~3 ms of CPU more at every first start, for nothing to bring up to date."""
    new = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    # In the script: executescript commits a transaction begun before it.
    script = "BEGIN IMMEDIATE;" + SCHEMA + AUDIT_SCHEMA + CERTIFICATE_SCHEMA + TRAFFIC_SCHEMA + USAGE_SCHEMA
    if new:  # another process making it at the same time waits for the lock, then finds every table made
        script += "".join(f"{statement};\n" for statement in _ADDED_INDEXES)
    try:
        db.executescript(script)
        if not new:
            migrate(db)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
