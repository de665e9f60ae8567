"""Organizations and their projects, and the first start's organization, project and keys."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from app.sandbox.ids import new_id
from app.sandbox.store.database import Database
from app.sandbox.store.keys import ALL, SANDBOX_OWNER, insert_key, make_key


@dataclass(frozen=True)
class Credentials:
    """The first start's organization, project and keys: made in memory, written out, then committed."""

    org_id: str
    project_id: str
    admin_key: str
    api_key: str

    @classmethod
    def new(cls) -> Credentials:
        org_id, project_id = new_id("org"), new_id("proj")
        return cls(org_id, project_id, make_key("admin", org_id), make_key("project", project_id))


class Organizations:
    """The organizations and projects of one store. Projects never move: the organization of each found
    is kept in memory."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._project_orgs: dict[str, str] = {}

    def is_empty(self) -> bool:
        return bool(
            self._database.read(lambda db: db.execute("SELECT COUNT(*) FROM orgs").fetchone()[0] == 0)
        )

    def bootstrap(
        self,
        credentials: Credentials | None = None,
        org_name: str = "Sandbox organization",
        project_name: str = "Default project",
    ) -> Credentials:
        """Commit an organization, a project and a key of each kind in one transaction (all or nothing).
        Callers that must keep the keys write them out first: they are stored hashed only.

        Waited for on the calling thread: made at the first start, before the server's loop serves (and by
        tests, beside a server that runs). Run as a coroutine it needed a thread and an event loop of its
        own (run_blocking), ~0.5 ms of CPU at every first start."""
        creds = credentials or Credentials.new()
        now = int(time.time())

        def work(db: sqlite3.Connection) -> Credentials:
            db.execute("INSERT INTO orgs VALUES (?, ?, ?)", (creds.org_id, org_name, now))
            db.execute(
                "INSERT INTO projects VALUES (?, ?, ?, ?)",
                (creds.project_id, creds.org_id, project_name, now),
            )
            for key, kind, project_id, name in (
                (creds.admin_key, "admin", None, "First admin key"),
                (creds.api_key, "project", creds.project_id, "First project key"),
            ):
                insert_key(db, key, kind, creds.org_id, project_id, name, SANDBOX_OWNER, ALL)
            return creds

        return self._database.submit(work).result()

    async def create_project(self, org_id: str, name: str) -> str:
        project_id = new_id("proj")
        row = (project_id, org_id, name, int(time.time()))
        await self._database.write(lambda db: db.execute("INSERT INTO projects VALUES (?, ?, ?, ?)", row))
        return project_id

    def orgs(self) -> list[dict[str, Any]]:
        return self._database.read(
            lambda db: [dict(row) for row in db.execute("SELECT id, name FROM orgs ORDER BY created_at")]
        )

    def project_org(self, project_id: str) -> str | None:
        known = self._project_orgs.get(project_id)
        if known is not None:
            return known
        row = self._database.read(
            lambda db: db.execute("SELECT org_id FROM projects WHERE id = ?", (project_id,)).fetchone()
        )
        if row is None:
            return None
        self._project_orgs[project_id] = str(row[0])
        return str(row[0])

    def projects(self, org_id: str) -> list[dict[str, Any]]:
        def work(db: sqlite3.Connection) -> list[dict[str, Any]]:
            rows = db.execute(
                "SELECT id, name, created_at FROM projects WHERE org_id = ? ORDER BY created_at, id",
                (org_id,),
            )
            return [{"object": "project", **dict(row)} for row in rows]

        return self._database.read(work)
