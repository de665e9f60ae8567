"""Saved Playground conversations: a local SQLite file in the data directory, searched with FTS5.

Qt-free, so the store is tested and benchmarked alone. Each turn is written as it finishes (one small
transaction), so a crash loses at most the turn that was streaming. Search uses SQLite's own full-text
index (prefix queries) with one document per conversation (its title and every turn): a keystroke then
merges one hit per conversation. One document per turn would cost ~19 ms for a one-letter prefix over 1,000
conversations of 8 turns (8,000 hits to merge), more than a plain scan of the texts in memory (~7 ms);
one per conversation takes ~6 ms, without holding the texts in memory.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.common.private import private_dir, private_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    model TEXT NOT NULL,
    settings TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    turn_count INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS turns (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    answer TEXT NOT NULL,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    response_id TEXT,
    error TEXT NOT NULL,
    details TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (conversation_id, position)
);
CREATE INDEX IF NOT EXISTS conversations_by_update ON conversations(updated_at DESC);
"""
# One document per conversation, its rowid the conversation's own rowid (found through the primary key, so
# replacing a conversation's document reads no other). The store never runs VACUUM, which could renumber
# rowids; `_rebuild_search` would make the index again.
SEARCH_SCHEMA = """
CREATE VIRTUAL TABLE IF NOT EXISTS conversation_text USING fts5(
    text, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3'
);
"""
SCHEMA_VERSION = 2  # 1: one search row per turn, in a table named `search`
TITLE_LENGTH = 60


@dataclass(frozen=True)
class StoredTurn:
    """One exchange as saved: enough to show it again and to go on chaining from it."""

    prompt: str
    answer: str
    model: str
    status: str
    response_id: str | None = None
    error: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # attachments' labels, figures, citations…
    created_at: float = 0.0


@dataclass(frozen=True)
class ConversationSummary:
    """A saved conversation's line in the sidebar."""

    id: str
    title: str
    model: str
    updated_at: float
    turn_count: int


@dataclass(frozen=True)
class Conversation:
    """A saved conversation read back: its line, its settings and its turns."""

    summary: ConversationSummary
    settings: dict[str, Any]
    turns: tuple[StoredTurn, ...]

    @property
    def last_response_id(self) -> str | None:
        """Where a reopened conversation chains on from."""
        for turn in reversed(self.turns):
            if turn.response_id:
                return turn.response_id
        return None


def title_from(prompt: str) -> str:
    """A conversation's first title: its first prompt's first line, shortened at a word."""
    line = next((part.strip() for part in prompt.splitlines() if part.strip()), "") or "New conversation"
    if len(line) <= TITLE_LENGTH:
        return line
    cut = line[:TITLE_LENGTH].rsplit(" ", 1)[0] or line[:TITLE_LENGTH]
    return cut + "…"


def match_query(text: str) -> str | None:
    """A person's search words as an FTS5 query: every word, as a prefix; None when nothing is searchable.

    Each word is quoted (quotes doubled), so FTS5's operators and punctuation typed by a person never
    make a syntax error.
    """
    words = [word for word in "".join(c if c.isalnum() else " " for c in text).split() if word]
    if not words:
        return None
    return " ".join('"' + word.replace('"', '""') + '"*' for word in words)


class ConversationStore:
    def __init__(self, path: Path) -> None:
        private_dir(path.parent)
        private_file(path)  # people's prompts and answers: the owner's only
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")  # a lost last turn after a power cut is acceptable
        self._db.execute("PRAGMA foreign_keys = ON")
        self._db.executescript(SCHEMA)
        if self._db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
            self._rebuild_search()
        else:
            self._db.execute(SEARCH_SCHEMA)

    def _rebuild_search(self) -> None:
        """Make the search index anew from the conversations: a file of an older schema version has none, or
        one of another shape."""
        with self._transaction() as db:
            db.execute("DROP TABLE IF EXISTS search")
            db.execute("DROP TABLE IF EXISTS conversation_text")
            db.execute(SEARCH_SCHEMA)  # one statement: executescript would commit the transaction
            for (conversation_id,) in db.execute("SELECT id FROM conversations").fetchall():
                _index(db, conversation_id)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- writing ----------------------------------------------------------------------------------

    def create(
        self,
        title: str,
        model: str,
        settings: dict[str, Any] | None = None,
        first: tuple[int, StoredTurn] | None = None,
    ) -> str:
        """A new conversation; with `first` (its position and turn), the turn that started it is saved in the
        same transaction: one write and one search document for a new conversation, not three."""
        import uuid  # here: uuid loads `platform` (~5 ms), and a launch saves nothing

        conversation_id = "conv_" + uuid.uuid4().hex[:16]
        now = time.time()
        with self._transaction() as db:
            db.execute(
                "INSERT INTO conversations VALUES (?, ?, ?, ?, ?, ?, ?)",
                (conversation_id, title, model, json.dumps(settings or {}), now, now, 1 if first else 0),
            )
            if first is not None:
                _insert_turn(db, conversation_id, *first)
            _index(db, conversation_id)
        return conversation_id

    def save_turn(self, conversation_id: str, position: int, turn: StoredTurn, newest: bool = False) -> None:
        """Insert or replace the turn at `position` (a turn is saved again when it finishes). `newest`: it
        becomes the conversation's last turn, and turns saved after it (an earlier message was edited and sent
        again from there) are deleted."""
        with self._transaction() as db:
            dropped = 0
            if newest:
                dropped = db.execute(
                    "DELETE FROM turns WHERE conversation_id = ? AND position > ?",
                    (conversation_id, position),
                ).rowcount
            before = db.execute(
                "SELECT prompt, answer FROM turns WHERE conversation_id = ? AND position = ?",
                (conversation_id, position),
            ).fetchone()
            _insert_turn(db, conversation_id, position, turn)
            db.execute(
                "UPDATE conversations SET updated_at = ?, model = ?,"
                " turn_count = (SELECT COUNT(*) FROM turns WHERE conversation_id = ?) WHERE id = ?",
                (time.time(), turn.model, conversation_id, conversation_id),
            )
            # The document is the whole conversation: written again only when its text changed. An edit
            # replays every turn before it, and rewriting it for each would cost ~2.6 s at 150 turns.
            if dropped or before != (turn.prompt, turn.answer):
                _index(db, conversation_id)

    def update_settings(self, conversation_id: str, settings: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE conversations SET settings = ? WHERE id = ?", (json.dumps(settings), conversation_id)
        )

    def rename(self, conversation_id: str, title: str) -> None:
        title = title.strip() or "Untitled"
        with self._transaction() as db:
            db.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id))
            _index(db, conversation_id)

    def delete(self, conversation_id: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM turns WHERE conversation_id = ?", (conversation_id,))
            db.execute(
                "DELETE FROM conversation_text WHERE rowid = (SELECT rowid FROM conversations WHERE id = ?)",
                (conversation_id,),
            )
            db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    # -- reading ----------------------------------------------------------------------------------

    def summaries(
        self, query: str = "", limit: int = 500, after: ConversationSummary | None = None
    ) -> list[ConversationSummary]:
        """Most recently updated first (then by id, so that the order is total); with a query, only
        conversations whose title or turns match. `after`: the next page, the ones that come after that
        summary in this order (a page of the sidebar read as it is scrolled to)."""
        select = "SELECT c.id, c.title, c.model, c.updated_at, c.turn_count FROM conversations c"
        match = match_query(query)
        if query.strip() and match is None:
            return []
        where: list[str] = []
        values: list[object] = []
        if match is not None:
            where.append("c.rowid IN (SELECT rowid FROM conversation_text WHERE conversation_text MATCH ?)")
            values.append(match)
        if after is not None:
            where.append("(c.updated_at < ? OR (c.updated_at = ? AND c.id < ?))")
            values += [after.updated_at, after.updated_at, after.id]
        condition = f" WHERE {' AND '.join(where)}" if where else ""
        rows = self._db.execute(
            f"{select}{condition} ORDER BY c.updated_at DESC, c.id DESC LIMIT ?", (*values, limit)
        )
        return [ConversationSummary(*row) for row in rows]

    def summary(self, conversation_id: str) -> ConversationSummary | None:
        """One conversation's line in the list (the sidebar updates the one row a saved turn changed)."""
        row = self._db.execute(
            "SELECT id, title, model, updated_at, turn_count FROM conversations WHERE id = ?",
            (conversation_id,),
        ).fetchone()
        return ConversationSummary(*row) if row is not None else None

    def load(self, conversation_id: str) -> Conversation | None:
        row = self._db.execute(
            "SELECT id, title, model, updated_at, settings FROM conversations WHERE id = ?",
            (conversation_id,),
        ).fetchone()
        if row is None:
            return None
        turns = tuple(
            StoredTurn(
                prompt=prompt,
                answer=answer,
                model=model,
                status=status,
                response_id=response_id,
                error=error,
                details=json.loads(details),
                created_at=created_at,
            )
            for prompt, answer, model, status, response_id, error, details, created_at in self._db.execute(
                "SELECT prompt, answer, model, status, response_id, error, details, created_at FROM turns"
                " WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            )
        )
        summary = ConversationSummary(row[0], row[1], row[2], row[3], len(turns))
        return Conversation(summary, json.loads(row[4]), turns)


def _insert_turn(db: sqlite3.Connection, conversation_id: str, position: int, turn: StoredTurn) -> None:
    db.execute(
        "INSERT OR REPLACE INTO turns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            conversation_id,
            position,
            turn.prompt,
            turn.answer,
            turn.model,
            turn.status,
            turn.response_id,
            turn.error,
            json.dumps(turn.details),
            turn.created_at or time.time(),
        ),
    )


def _index(db: sqlite3.Connection, conversation_id: str) -> None:
    """Write the conversation's search document again: its title, then each prompt and answer in order."""
    row = db.execute("SELECT rowid, title FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
    if row is None:
        return
    rowid, title = row
    texts = db.execute(
        "SELECT prompt, answer FROM turns WHERE conversation_id = ? ORDER BY position", (conversation_id,)
    )
    document = "\n".join([title, *(f"{prompt}\n{answer}" for prompt, answer in texts)])
    db.execute("DELETE FROM conversation_text WHERE rowid = ?", (rowid,))
    db.execute("INSERT INTO conversation_text(rowid, text) VALUES (?, ?)", (rowid, document))
