"""Stored prompts in the sandbox's SQLite file: each prompt of an organization and its immutable versions.

A version is never changed once written: a save is a new version, numbered after the prompt's latest
inside the write, so two saves at once cannot take the same number. Each save is an audit event
(`prompt.created`, `prompt.version.created`) written in the same transaction: both or neither survive.
Reads use the reading connection.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from app.common.prompt_template import variables_in
from app.sandbox.contract.admin import AuditType
from app.sandbox.ids import new_id
from app.sandbox.store.audit import AuditRecord, Origin, insert
from app.sandbox.store.database import Database


def texts_of(body: dict[str, Any]) -> list[str]:
    """The texts of a version that may hold `{{variables}}`: its instructions, then its input's."""
    texts = [body["instructions"]] if body.get("instructions") else []
    given = body.get("input")
    if isinstance(given, str):
        return [*texts, given]
    for message in given or []:
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
        else:
            texts += [part["text"] for part in content if isinstance(part.get("text"), str)]
    return texts


@dataclass(frozen=True)
class PromptVersion:
    """One version of a prompt as stored: `body` holds instructions, input, model, options and note."""

    id: str
    version: int
    name: str
    body: dict[str, Any]
    created_at: int

    @property
    def variables(self) -> list[str]:
        return variables_in(texts_of(self.body))

    def json(self) -> dict[str, Any]:
        return {
            "object": "prompt",
            "id": self.id,
            "version": str(self.version),
            "name": self.name,
            "instructions": self.body.get("instructions"),
            "input": self.body.get("input"),
            "model": self.body.get("model"),
            "options": self.body.get("options") or {},
            "variables": self.variables,
            "note": self.body.get("note") or "",
            "created_at": self.created_at,
        }


def _row(prompt_id: str, row: sqlite3.Row | tuple[Any, ...]) -> PromptVersion:
    version, name, body, created_at = row
    return PromptVersion(prompt_id, int(version), str(name), json.loads(body), int(created_at))


_SELECT = (
    "SELECT v.version, json_extract(v.body, '$.name'), v.body, v.created_at FROM prompt_versions v "
    "JOIN prompts p ON p.id = v.prompt_id WHERE p.org_id = ? AND p.id = ?"
)


def _audit(
    kind: AuditType, org_id: str, origin: Origin, made: PromptVersion, before: int | None
) -> AuditRecord:
    """A save as the audit log keeps it: which prompt and version, its name and note, not its texts."""
    after = {"id": made.id, "version": str(made.version), "name": made.name}
    if made.body.get("note"):
        after["note"] = made.body["note"]
    previous = None if before is None else {"id": made.id, "version": str(before)}
    return AuditRecord(kind, "organization", org_id, origin, made.id, previous, after)


class StoredPrompts:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def create(self, org_id: str, body: dict[str, Any], origin: Origin) -> PromptVersion:
        """A new prompt, its version 1, saved by `origin`."""
        now = self._database.now()
        made = PromptVersion(new_id("pmpt"), 1, body["name"], body, now)

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO prompts VALUES (?, ?, ?, 1, ?)", (made.id, org_id, made.name, now))
            db.execute("INSERT INTO prompt_versions VALUES (?, 1, ?, ?)", (made.id, json.dumps(body), now))
            insert(db, _audit(AuditType.PROMPT_CREATED, org_id, origin, made, None), now)

        await self._database.write(work)
        return made

    async def add_version(
        self, org_id: str, prompt_id: str, body: dict[str, Any], origin: Origin
    ) -> PromptVersion | None:
        """The next version (its name, when `body` gives none, the latest's), saved by `origin`; None: no
        such prompt (nothing saved, nothing recorded)."""
        now = self._database.now()

        def work(db: sqlite3.Connection) -> PromptVersion | None:
            row = db.execute(
                "SELECT latest, name FROM prompts WHERE id = ? AND org_id = ?", (prompt_id, org_id)
            ).fetchone()
            if row is None:
                return None
            version, name = int(row[0]) + 1, body.get("name") or str(row[1])
            stored = {**body, "name": name}
            db.execute("UPDATE prompts SET latest = ?, name = ? WHERE id = ?", (version, name, prompt_id))
            db.execute(
                "INSERT INTO prompt_versions VALUES (?, ?, ?, ?)",
                (prompt_id, version, json.dumps(stored), now),
            )
            made = PromptVersion(prompt_id, version, name, stored, now)
            insert(db, _audit(AuditType.PROMPT_VERSION_CREATED, org_id, origin, made, version - 1), now)
            return made

        return await self._database.write(work)

    def version(self, org_id: str, prompt_id: str, version: int | None = None) -> PromptVersion | None:
        """One version, or the latest when `version` is None; None: no such prompt or version."""
        args: tuple[str | int, ...] = (org_id, prompt_id)
        if version is None:
            sql = _SELECT + " AND v.version = p.latest"
        else:
            sql, args = _SELECT + " AND v.version = ?", (*args, version)
        row = self._database.read(lambda db: db.execute(sql, args).fetchone())
        return None if row is None else _row(prompt_id, row)

    def versions(self, org_id: str, prompt_id: str) -> list[PromptVersion]:
        """Every version of a prompt, the newest first (empty: no such prompt)."""
        rows = self._database.read(
            lambda db: db.execute(_SELECT + " ORDER BY v.version DESC", (org_id, prompt_id)).fetchall()
        )
        return [_row(prompt_id, row) for row in rows]

    def latest(self, org_id: str, search: str | None = None) -> list[PromptVersion]:
        """The latest version of each of the organization's prompts, the most recently saved first; with
        `search`, those whose name, instructions or input hold it (any case)."""
        rows = self._database.read(
            lambda db: db.execute(
                "SELECT p.id, v.version, p.name, v.body, v.created_at FROM prompts p JOIN prompt_versions v "
                "ON v.prompt_id = p.id AND v.version = p.latest WHERE p.org_id = ? "
                "ORDER BY v.created_at DESC, p.id",
                (org_id,),
            ).fetchall()
        )
        found = [_row(row[0], tuple(row)[1:]) for row in rows]
        if not search:
            return found
        needle = search.casefold()
        return [
            record
            for record in found
            if needle in record.name.casefold() or any(needle in t.casefold() for t in texts_of(record.body))
        ]
