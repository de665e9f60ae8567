"""Stored responses (`store: true`), with their input and output items kept by id for `item_reference`.

An item names the latest stored response that holds it: deleting a response (retention, or DELETE) deletes
the items no later response saved again, its text with it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from app.sandbox.store.database import Database


class StoredResponses:
    """The stored responses of one store."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def save(
        self, project_id: str, body: dict[str, Any], history: Any, items: list[dict[str, Any]] | None = None
    ) -> None:
        """Keep the response; `items`: the turn's input and output items, kept by id for `item_reference`
        inputs."""
        row = (body["id"], project_id, json.dumps(body), json.dumps(history), body["created_at"])
        response_id = body["id"]
        item_rows = [
            (item["id"], project_id, json.dumps(item), response_id) for item in items or [] if "id" in item
        ]

        def work(db: sqlite3.Connection) -> None:
            # An upsert: a background response is written when queued, then again when it ends.
            db.execute(
                "INSERT INTO responses VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE "
                "SET body = excluded.body, history = excluded.history",
                row,
            )
            db.executemany(
                "INSERT OR REPLACE INTO items (id, project_id, item, response_id) VALUES (?, ?, ?, ?)",
                item_rows,
            )

        await self._database.write(work)

    def load_items(self, project_id: str, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The stored items of these ids (the ones held; an id not held is simply absent)."""

        def work(db: sqlite3.Connection) -> dict[str, dict[str, Any]]:
            found: dict[str, dict[str, Any]] = {}
            for item_id in dict.fromkeys(ids):
                row = db.execute(
                    "SELECT item FROM items WHERE project_id = ? AND id = ?", (project_id, item_id)
                ).fetchone()
                if row is not None:
                    found[item_id] = json.loads(row[0])
            return found

        return self._database.read(work)

    async def prune(self, created_before: float, batch: int = 500) -> int:
        """Delete up to `batch` stored responses made before `created_before` (epoch seconds), oldest first,
        with their kept events and items; returns how many. On the writer thread, in the same batches as
        requests' writes: a small batch keeps each transaction short, so requests never wait behind a large
        backlog."""

        def work(db: sqlite3.Connection) -> int:
            ids = [
                (row[0],)
                for row in db.execute(
                    "SELECT id FROM responses WHERE created_at < ? ORDER BY created_at LIMIT ?",
                    (int(created_before), batch),
                )
            ]
            _delete_with_items(db, ids)
            return len(ids)

        return await self._database.write(work)

    def load(self, project_id: str, response_id: str) -> tuple[dict[str, Any], Any] | None:
        row = self._database.read(
            lambda db: db.execute(
                "SELECT body, history FROM responses WHERE id = ? AND project_id = ?",
                (response_id, project_id),
            ).fetchone()
        )
        return None if row is None else (json.loads(row[0]), json.loads(row[1]))

    async def delete(self, project_id: str, response_id: str) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            held = db.execute(
                "SELECT 1 FROM responses WHERE id = ? AND project_id = ?", (response_id, project_id)
            ).fetchone()
            if held:
                _delete_with_items(db, [(response_id,)])
            return bool(held)

        return await self._database.write(work)


def _delete_with_items(db: sqlite3.Connection, ids: list[tuple[str]]) -> None:
    """Delete these responses, a background response's kept events, and the items no later response holds."""
    db.executemany("DELETE FROM responses WHERE id = ?", ids)
    db.executemany("DELETE FROM response_events WHERE response_id = ?", ids)
    db.executemany("DELETE FROM items WHERE response_id = ?", ids)
