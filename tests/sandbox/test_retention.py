"""Stored responses are kept 30 days by default, then deleted in the background while requests go on."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import httpx
import pytest

from app.sandbox.cli import build_parser
from app.sandbox.config import SandboxConfig
from app.sandbox.store.retention import prune_once
from tests.conftest import LOOPBACK_PROXY, Sandbox, start_sandbox

DAY = 86_400


def stored(sandbox: Sandbox, count: int) -> list[str]:
    with sandbox.api() as client:
        return [
            client.post("/responses", json={"model": "service-pro", "input": "hi"}).json()["id"]
            for _ in range(count)
        ]


def age(database: Path, ids: list[str], days: float) -> None:
    with sqlite3.connect(database) as db:
        db.executemany(
            "UPDATE responses SET created_at = ? WHERE id = ?",
            [(int(time.time() - days * DAY), i) for i in ids],
        )
    db.close()


def status(sandbox: Sandbox, response_id: str) -> int:
    with sandbox.api() as client:
        return client.get(f"/responses/{response_id}").status_code


def test_the_default_is_thirty_days() -> None:
    assert SandboxConfig(data_dir=Path()).keep_responses_days == 30
    assert build_parser().parse_args(["serve", "--data", "d"]).keep_responses_days == 30
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--data", "d", "--keep-responses-days", "-1"])


def test_prune_deletes_only_the_expired(sandbox_factory: object) -> None:
    sandbox: Sandbox = sandbox_factory()  # type: ignore[operator]
    old, recent = stored(sandbox, 3), stored(sandbox, 2)
    age(sandbox.server.config.database, old, 31)
    age(sandbox.server.config.database, recent[:1], 29)
    assert asyncio.run(prune_once(sandbox.server.store, 30)) == 3
    assert [status(sandbox, i) for i in old + recent] == [404, 404, 404, 200, 200]


def test_a_restart_deletes_a_backlog_in_the_background_while_requests_go_on(tmp_path: Path) -> None:
    first = start_sandbox(tmp_path, trusted_proxies=LOOPBACK_PROXY)
    sandbox = Sandbox(first)
    keep = stored(sandbox, 1)
    credentials = first.credentials
    with sqlite3.connect(first.config.database) as db:  # a backlog: 5,000 responses 40 days old
        template = db.execute("SELECT project_id, body, history FROM responses").fetchone()
        old = int(time.time() - 40 * DAY)
        db.executemany(
            "INSERT INTO responses VALUES (?, ?, ?, ?, ?)",
            [(f"resp_old{i}", template[0], template[1], template[2], old) for i in range(5_000)],
        )
    db.close()
    first.stop()
    # A limit the polling below cannot reach however long the backlog takes on a loaded machine.
    restarted = start_sandbox(tmp_path, trusted_proxies=LOOPBACK_PROXY, rate_limit_per_minute=1_000_000)
    again = Sandbox(restarted, credentials)
    try:
        slowest = 0.0
        deadline = time.monotonic() + 20
        while status(again, "resp_old4999") != 404:  # served meanwhile, every one
            started = time.monotonic()
            assert status(again, keep[0]) == 200
            slowest = max(slowest, time.monotonic() - started)
            assert time.monotonic() < deadline, "the backlog was not deleted"
        assert status(again, keep[0]) == 200 and slowest < 2
        with sqlite3.connect(again.server.config.database) as db:
            assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == 1
        db.close()
    finally:
        again.server.stop()


def test_prune_deletes_the_items_of_what_it_deleted(sandbox_factory: object) -> None:
    """Issue 38: a deleted response's items (its text) go with it, and `item_reference` no longer finds them;
    an item a kept response saved again stays."""
    sandbox: Sandbox = sandbox_factory()  # type: ignore[operator]

    def referring(client: httpx.Client, item_id: str) -> httpx.Response:
        body = {"model": "service-pro", "input": [{"type": "item_reference", "id": item_id}]}
        return client.post("/responses", json=body)

    with sandbox.api() as client:
        old = client.post("/responses", json={"model": "service-pro", "input": "a secret plan"}).json()
        asked = client.get(f"/responses/{old['id']}/input_items").json()["data"][0]["id"]
        answered = old["output"][0]["id"]
        assert referring(client, asked).status_code == 200  # a recent response saves it again
    gone = stored(sandbox, 1)
    age(sandbox.server.config.database, [old["id"], *gone], 31)
    assert asyncio.run(prune_once(sandbox.server.store, 30)) == 2
    with sqlite3.connect(sandbox.server.config.database) as db:
        texts = [row[0] for row in db.execute("SELECT item FROM items")]
    db.close()
    assert not any(answered in text for text in texts)  # the old answer's text is gone
    with sandbox.api() as client:
        refused = referring(client, answered)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "item_not_found"
        assert referring(client, asked).status_code == 200  # held by the recent response


def test_items_kept_before_they_named_their_response_go_with_it(tmp_path: Path) -> None:
    """A store from before the link: opening it links each item to its response, and drops the items none
    holds; retention then deletes them with their response."""
    first = start_sandbox(tmp_path, trusted_proxies=LOOPBACK_PROXY)
    credentials, database = first.credentials, first.config.database
    held = stored(Sandbox(first), 1)
    first.stop()
    with sqlite3.connect(database) as db:  # as such a store was: no link, and an item of a deleted response
        db.execute("DROP INDEX items_by_response")
        db.execute("ALTER TABLE items DROP COLUMN response_id")
        db.execute("INSERT INTO items VALUES ('msg_orphan', 'p', '{}')")
    db.close()
    # No retention task of its own: its first round, at start, could run after the test aged the responses
    # and take them before the test's own round.
    again = Sandbox(
        start_sandbox(tmp_path, trusted_proxies=LOOPBACK_PROXY, keep_responses_days=None), credentials
    )
    try:
        with sqlite3.connect(database) as db:
            links = dict(db.execute("SELECT id, response_id FROM items").fetchall())
        db.close()
        assert "msg_orphan" not in links and set(links.values()) == set(held) and len(links) == 2
        age(database, held, 31)
        assert asyncio.run(prune_once(again.server.store, 30)) == 1
        with sqlite3.connect(database) as db:
            assert db.execute("SELECT count(*) FROM items").fetchone()[0] == 0
        db.close()
    finally:
        again.server.stop()


def test_delete_takes_the_response_s_own_items_with_it(sandbox: Sandbox) -> None:
    with sandbox.api() as client:
        created = client.post("/responses", json={"model": "service-pro", "input": "hi"}).json()
        answered = created["output"][0]["id"]
        assert client.delete(f"/responses/{created['id']}").status_code == 200
        body = {"model": "service-pro", "input": [{"type": "item_reference", "id": answered}]}
        refused = client.post("/responses", json=body)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "item_not_found"
