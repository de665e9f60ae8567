"""The Admin API's keys (docs/contract.md, "Keys"): admin keys, project keys, service accounts; a created key
works with the official client, a deleted one is refused on the next request, use is counted in batches."""

from __future__ import annotations

import sqlite3
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.conftest import Sandbox, SandboxFactory

openai = pytest.importorskip("openai")


def _base(sandbox: Sandbox) -> str:
    return f"/organizations/{sandbox.creds.org_id}"


def _project(sandbox: Sandbox) -> str:
    return f"{_base(sandbox)}/projects/{sandbox.creds.project_id}"


def test_service_account_key_works_with_the_official_client_until_deleted(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox = sandbox_factory()
    with sandbox.admin() as admin, ExitStack() as closing:
        made = admin.post(f"{_project(sandbox)}/service_accounts", json={"name": "CI of repo X"})
        assert made.status_code == 201, made.text
        account = made.json()
        assert account["object"] == "organization.project.service_account" and account["role"] == "member"
        value, key_id = account["api_key"]["value"], account["api_key"]["id"]
        client = closing.enter_context(openai.OpenAI(base_url=sandbox.url, api_key=value, max_retries=0))
        assert client.responses.create(model="service-pro", input="hi").status == "completed"
        listed = admin.get(f"{_project(sandbox)}/api_keys").json()["data"]
        mine = next(key for key in listed if key["id"] == key_id)
        assert mine["name"] == "CI of repo X" and mine["owner"]["type"] == "service_account"
        assert mine["redacted_value"].endswith(value[-4:]) and value not in str(listed)
        assert mine["last_used_at"] is not None and mine["request_count"] == 1
        deleted = admin.delete(f"{_project(sandbox)}/api_keys/{key_id}")
        assert deleted.json() == {
            "object": "organization.project.api_key.deleted",
            "id": key_id,
            "deleted": True,
        }
        with pytest.raises(openai.AuthenticationError):
            client.responses.create(model="service-pro", input="hi")
        assert admin.get(f"{_project(sandbox)}/api_keys/{key_id}").status_code == 404
        events = admin.get(f"{_base(sandbox)}/audit_log").json()["data"]
    kinds = [event["type"] for event in events]
    assert kinds[:3] == ["api_key.deleted", "api_key.created", "service_account.created"]
    assert value not in str(events) and value[-8:] not in str(events)


def test_admin_key_created_once_listed_redacted_and_revoked(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory()
    with sandbox.admin() as admin:
        made = admin.post(f"{_base(sandbox)}/admin_api_keys", json={"name": "ops"})
        assert made.status_code == 201
        body = made.json()
        assert body["object"] == "organization.admin_api_key" and body["value"].startswith("sk-admin-")
        listed = admin.get(f"{_base(sandbox)}/admin_api_keys").json()
        assert [key["name"] for key in listed["data"]] == ["First admin key", "ops"]
        assert all("value" not in key for key in listed["data"])
        assert listed["data"][0]["owner"]["type"] == "user"
    with sandbox.client(body["value"]) as new_admin:
        assert new_admin.get(f"{_base(sandbox)}/projects").status_code == 200
        gone = new_admin.delete(f"{_base(sandbox)}/admin_api_keys/{body['id']}")
        assert gone.status_code == 200
        assert new_admin.get(f"{_base(sandbox)}/projects").status_code == 401


def test_last_used_at_moves_within_five_seconds_and_reaches_the_store(
    sandbox_factory: SandboxFactory,
) -> None:
    sandbox = sandbox_factory(usage_flush_seconds=0.5)
    with sandbox.admin() as admin:
        made = admin.post(f"{_project(sandbox)}/service_accounts", json={"name": "used"}).json()
        key_id = made["api_key"]["id"]
        before = admin.get(f"{_project(sandbox)}/api_keys/{key_id}").json()
        assert before["last_used_at"] is None
        with sandbox.client(made["api_key"]["value"]) as api:
            assert api.get("/models").status_code == 200
        started = time.monotonic()
        while admin.get(f"{_project(sandbox)}/api_keys/{key_id}").json()["last_used_at"] is None:
            assert time.monotonic() - started < 5
            time.sleep(0.05)
    path = sandbox.server.store.path
    deadline = time.monotonic() + 5
    while True:  # written by the keeper, in a batch, not by the request
        with sqlite3.connect(path) as db:
            row = db.execute(
                "SELECT last_used_at, request_count FROM api_keys WHERE redacted_value LIKE ?",
                (f"%{made['api_key']['value'][-4:]}",),
            ).fetchone()
        if row[0] is not None:
            break
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert row[1] == 1


def test_permissions_read_only_and_endpoint_set(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        read_only = admin.post(
            f"{_project(sandbox)}/service_accounts", json={"name": "reader", "permissions": "read_only"}
        ).json()["api_key"]["value"]
        models_only = admin.post(
            f"{_project(sandbox)}/service_accounts", json={"name": "models", "permissions": ["models"]}
        ).json()["api_key"]["value"]
        bad = admin.post(
            f"{_project(sandbox)}/service_accounts", json={"name": "x", "permissions": ["files"]}
        )
        assert bad.status_code == 400
    with sandbox.client(read_only) as api:
        assert api.get("/models").status_code == 200
        refused = api.post("/responses", json={"model": "service-pro", "input": "hi"})
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "insufficient_permissions"
    with sandbox.client(models_only) as api:
        assert api.get("/models").status_code == 200
        assert api.post("/responses", json={"model": "service-pro", "input": "hi"}).status_code == 403


def test_a_project_key_cannot_manage_keys(sandbox: Sandbox) -> None:
    with sandbox.api() as api:
        assert api.get(f"{_project(sandbox)}/api_keys").status_code == 403
        assert api.post(f"{_base(sandbox)}/admin_api_keys", json={"name": "x"}).status_code == 403
    with sandbox.admin() as admin:
        assert admin.delete(f"{_project(sandbox)}/api_keys/key_0000000000000000").status_code == 404
        assert admin.delete(f"{_project(sandbox)}/service_accounts/svc_acct_x").status_code == 404
        assert admin.post(f"{_base(sandbox)}/admin_api_keys", json={"name": ""}).status_code == 400


def test_keys_of_a_store_made_before_their_columns_are_listed_and_still_work(tmp_path: Path) -> None:
    from app.sandbox.store.aggregates import Store
    from app.sandbox.store.keys import hash_key, key_id

    path = tmp_path / "old.sqlite3"
    old_key = "sk-proj_old-" + "x" * 43
    with sqlite3.connect(path) as db:  # the api_keys table as the first release made it
        db.execute(
            "CREATE TABLE api_keys (key_hash TEXT PRIMARY KEY, kind TEXT NOT NULL, org_id TEXT NOT NULL, "
            "project_id TEXT, created_at INTEGER NOT NULL)"
        )
        db.execute(
            "INSERT INTO api_keys VALUES (?, 'project', 'org_old', 'proj_old', 1700000000)",
            (hash_key(old_key),),
        )
    store = Store(path)
    try:
        record = store.keys.lookup(old_key)
        assert record is not None and record.permissions == "all"
        store.keys.used(record, 1_800_000_000)
        [row] = store.keys.rows("project_id = ?", ("proj_old",))
        assert row["id"] == key_id(hash_key(old_key)) and row["redacted_value"] == "sk-..."
        assert row["last_used_at"] == 1_800_000_000 and row["request_count"] == 1
    finally:
        store.close()
    with sqlite3.connect(path) as db:  # the count taken in memory was written when the store closed
        assert db.execute("SELECT request_count FROM api_keys").fetchone()[0] == 1


def test_deleting_a_service_account_deletes_its_key(sandbox: Sandbox) -> None:
    with sandbox.admin() as admin:
        made = admin.post(f"{_project(sandbox)}/service_accounts", json={"name": "batch job"}).json()
        accounts = admin.get(f"{_project(sandbox)}/service_accounts").json()
        assert made["id"] in [account["id"] for account in accounts["data"]]
        assert "api_key" not in str(accounts) and made["api_key"]["value"] not in str(accounts)
        one = admin.get(f"{_project(sandbox)}/service_accounts/{made['id']}").json()
        assert one == {key: made[key] for key in ("object", "id", "name", "role", "created_at")}
        with sandbox.client(made["api_key"]["value"]) as api:
            assert api.get("/models").status_code == 200
            gone = admin.delete(f"{_project(sandbox)}/service_accounts/{made['id']}")
            assert gone.json() == {
                "object": "organization.project.service_account.deleted",
                "id": made["id"],
                "deleted": True,
            }
            assert api.get("/models").status_code == 401
        assert admin.get(f"{_project(sandbox)}/api_keys/{made['api_key']['id']}").status_code == 404
        admin.post(f"{_project(sandbox)}/service_accounts", json={"name": "a second page"})
        page = admin.get(f"{_project(sandbox)}/api_keys", params={"limit": 1}).json()
        assert len(page["data"]) == 1 and page["has_more"] is True
        after = admin.get(
            f"{_project(sandbox)}/api_keys", params={"limit": 1, "after": page["last_id"]}
        ).json()
        assert after["data"][0]["id"] != page["last_id"]
