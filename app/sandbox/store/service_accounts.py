"""Service accounts: a project's non-human owners of keys. Making one makes its key (shown once); deleting
one deletes its keys, which the gateway refuses from the next request on."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from app.sandbox.contract.admin import AuditType
from app.sandbox.ids import new_id
from app.sandbox.store.audit import AuditRecord, Origin, insert
from app.sandbox.store.database import Database
from app.sandbox.store.keys import Keys, hash_key, insert_key, key_id, make_key


def account_json(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "object": "organization.project.service_account",
        "id": row["id"],
        "name": row["name"],
        "role": "member",
        "created_at": row["created_at"],
    }


class ServiceAccounts:
    """The service accounts of one store."""

    def __init__(self, database: Database, keys: Keys) -> None:
        self._database = database
        self._keys = keys

    async def create(
        self, org_id: str, project_id: str, name: str, permissions: str | Sequence[str], origin: Origin
    ) -> tuple[dict[str, Any], str, str]:
        """(the account, its key's value, its key's id): the account, its key and both audit events in one
        transaction."""
        account: dict[str, Any] = {"id": new_id("svc_acct"), "name": name, "created_at": self._database.now()}
        key = make_key("project", project_id)
        owner = {"type": "service_account", "service_account": account_json(account)}
        made = key_id(hash_key(key))
        now = self._database.now()
        shown_permissions = permissions if isinstance(permissions, str) else sorted(permissions)
        made_account = AuditRecord(
            AuditType.SERVICE_ACCOUNT_CREATED,
            "project",
            project_id,
            origin,
            account["id"],
            after={"name": name},
        )
        made_key = replace(
            made_account,
            type=AuditType.KEY_CREATED,
            entry_id=made,
            after={"kind": "project", "name": name, "permissions": shown_permissions, "owner": account["id"]},
        )

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO service_accounts VALUES (?, ?, ?, ?, ?)",
                (account["id"], org_id, project_id, name, account["created_at"]),
            )
            insert_key(db, key, "project", org_id, project_id, name, owner, permissions, account["id"])
            insert(db, made_account, now)
            insert(db, made_key, now)

        await self._database.write(work)
        return account_json(account), key, made

    def list(self, project_id: str) -> list[dict[str, Any]]:
        query = "SELECT * FROM service_accounts WHERE project_id = ? ORDER BY created_at, id"
        rows = self._database.read(lambda db: [dict(row) for row in db.execute(query, (project_id,))])
        return [account_json(row) for row in rows]

    def get(self, project_id: str, account_id: str) -> dict[str, Any] | None:
        return next((row for row in self.list(project_id) if row["id"] == account_id), None)

    async def delete(self, project_id: str, account_id: str, origin: Origin) -> bool:
        """Delete the account and its keys; False when there was no such account."""
        now = self._database.now()
        record = AuditRecord(AuditType.SERVICE_ACCOUNT_DELETED, "project", project_id, origin, account_id)

        def work(db: sqlite3.Connection) -> list[str] | None:
            gone = db.execute(
                "DELETE FROM service_accounts WHERE id = ? AND project_id = ?", (account_id, project_id)
            ).rowcount
            if not gone:
                return None
            digests = [
                row[0]
                for row in db.execute(
                    "SELECT key_hash FROM api_keys WHERE service_account_id = ?", (account_id,)
                )
            ]
            db.execute("DELETE FROM api_keys WHERE service_account_id = ?", (account_id,))
            insert(db, record, now)
            return digests

        digests = await self._database.write(work)
        if digests is None:
            return False
        self._keys.forget(digests)
        return True
