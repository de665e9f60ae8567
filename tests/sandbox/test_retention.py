"""Stored responses are kept 30 days by default, then deleted in the background while requests go on."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

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
    again = Sandbox(start_sandbox(tmp_path, trusted_proxies=LOOPBACK_PROXY), credentials)
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
