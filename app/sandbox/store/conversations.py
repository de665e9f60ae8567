"""Conversations in the sandbox's SQLite file: each with its metadata and its items in order.

Writes go through the store's one writer thread (durable before they are acknowledged, never on the event
loop); reads use its reading connection. An item keeps its position, so a deletion leaves the order of the
rest as it was; a new item goes after the last one, decided inside the write so that two turns appending
at once cannot take the same place.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Literal

from app.sandbox.ids import new_id
from app.sandbox.store.database import Database


@dataclass(frozen=True)
class ConversationRecord:
    id: str
    created_at: int
    metadata: dict[str, str]

    def json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "conversation",
            "created_at": self.created_at,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class ItemPage:
    items: list[dict[str, Any]]
    has_more: bool


def _append(db: sqlite3.Connection, conversation_id: str, items: list[dict[str, Any]]) -> None:
    row = db.execute(
        "SELECT COALESCE(MAX(position), -1) FROM conversation_items WHERE conversation_id = ?",
        (conversation_id,),
    ).fetchone()
    rows = [
        (conversation_id, row[0] + 1 + offset, item["id"], json.dumps(item))
        for offset, item in enumerate(items)
    ]
    db.executemany("INSERT INTO conversation_items VALUES (?, ?, ?, ?)", rows)


class StoredConversations:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def create(
        self, project_id: str, metadata: dict[str, str], items: list[dict[str, Any]]
    ) -> ConversationRecord:
        record = ConversationRecord(new_id("conv"), int(time.time()), metadata)

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO conversations VALUES (?, ?, ?, ?)",
                (record.id, project_id, json.dumps(metadata), record.created_at),
            )
            _append(db, record.id, items)

        await self._database.write(work)
        return record

    def get(self, project_id: str, conversation_id: str) -> ConversationRecord | None:
        row = self._database.read(
            lambda db: db.execute(
                "SELECT created_at, metadata FROM conversations WHERE id = ? AND project_id = ?",
                (conversation_id, project_id),
            ).fetchone()
        )
        return None if row is None else ConversationRecord(conversation_id, row[0], json.loads(row[1]))

    async def set_metadata(self, project_id: str, conversation_id: str, metadata: dict[str, str]) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "UPDATE conversations SET metadata = ? WHERE id = ? AND project_id = ?",
                (json.dumps(metadata), conversation_id, project_id),
            )
            return cursor.rowcount > 0

        return await self._database.write(work)

    async def delete(self, project_id: str, conversation_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "DELETE FROM conversations WHERE id = ? AND project_id = ?", (conversation_id, project_id)
            )
            if cursor.rowcount:
                db.execute("DELETE FROM conversation_items WHERE conversation_id = ?", (conversation_id,))
            return cursor.rowcount > 0

        return await self._database.write(work)

    async def append(self, conversation_id: str, items: list[dict[str, Any]]) -> None:
        """Items after the last one (the caller checked that the conversation is the project's)."""
        await self._database.write(lambda db: _append(db, conversation_id, items))

    def all_items(self, conversation_id: str) -> list[dict[str, Any]]:
        """Every item, oldest first: the history a response on this conversation reads."""
        rows = self._database.read(
            lambda db: db.execute(
                "SELECT body FROM conversation_items WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
        )
        return [json.loads(row[0]) for row in rows]

    def position(self, conversation_id: str, item_id: str) -> int | None:
        row = self._database.read(
            lambda db: db.execute(
                "SELECT position FROM conversation_items WHERE conversation_id = ? AND id = ?",
                (conversation_id, item_id),
            ).fetchone()
        )
        return None if row is None else int(row[0])

    def item(self, conversation_id: str, item_id: str) -> dict[str, Any] | None:
        row = self._database.read(
            lambda db: db.execute(
                "SELECT body FROM conversation_items WHERE conversation_id = ? AND id = ?",
                (conversation_id, item_id),
            ).fetchone()
        )
        return None if row is None else dict(json.loads(row[0]))

    def page(
        self, conversation_id: str, order: Literal["asc", "desc"], after: int | None, limit: int
    ) -> ItemPage:
        """Up to `limit` items after the item at position `after`, in `order`."""
        compare, direction = (">", "ASC") if order == "asc" else ("<", "DESC")
        start = after if after is not None else (-1 if order == "asc" else 2**62)
        rows = self._database.read(
            lambda db: db.execute(
                f"SELECT body FROM conversation_items WHERE conversation_id = ? AND position {compare} ? "
                f"ORDER BY position {direction} LIMIT ?",
                (conversation_id, start, limit + 1),
            ).fetchall()
        )
        items = [json.loads(row[0]) for row in rows]
        return ItemPage(items[:limit], len(items) > limit)

    async def delete_item(self, conversation_id: str, item_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            cursor = db.execute(
                "DELETE FROM conversation_items WHERE conversation_id = ? AND id = ?",
                (conversation_id, item_id),
            )
            return cursor.rowcount > 0

        return await self._database.write(work)
