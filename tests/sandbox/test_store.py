"""The store: lists kept in memory and changed in place, other processes' writes seen, first start in order."""

from __future__ import annotations

import difflib
import ipaddress
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from app.netrules.segments import SegmentTable
from app.sandbox.config import SandboxConfig
from app.sandbox.server import SandboxServer
from app.sandbox.store import allowlist_record
from app.sandbox.store.aggregates import Store
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.allowlist_rows import DuplicateEntry
from app.sandbox.store.database import run_blocking
from app.sandbox.store.entry import EntryRecord
from app.sandbox.store.organizations import Organizations

IP = ipaddress.ip_address


def test_adds_and_removes_answer_at_once(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    org = store.organizations.bootstrap().org_id
    entry, _ = run_blocking(store.allowlists.add_entry("organization", org, "203.0.113.0/24", "office"))
    allowlist = store.allowlists.get("organization", org)
    assert allowlist.contains(IP("203.0.113.9")) and allowlist.holders(IP("::ffff:203.0.113.9")) == [entry.id]
    with pytest.raises(DuplicateEntry) as duplicate:
        run_blocking(store.allowlists.add_entry("organization", org, "203.0.113.0/24", "again"))
    assert duplicate.value.existing_id == entry.id
    assert run_blocking(store.allowlists.remove_entry("organization", org, entry.id))
    assert not store.allowlists.get("organization", org).contains(IP("203.0.113.9"))
    assert not run_blocking(store.allowlists.remove_entry("organization", org, entry.id))
    store.close()


def test_a_refused_change_leaves_list_and_disk_as_they_were(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    org = store.organizations.bootstrap().org_id

    def refuse(_list: object) -> None:
        raise PermissionError("no")

    with pytest.raises(PermissionError):
        run_blocking(store.allowlists.add_entry("organization", org, "203.0.113.0/24", "", guard=refuse))
    assert store.allowlists.get("organization", org).entries == ()
    store.close()
    reopened = Store(tmp_path / "s.sqlite3")
    assert reopened.allowlists.get("organization", org).entries == ()
    reopened.close()


def test_another_process_writes_are_seen_by_the_next_read(tmp_path: Path) -> None:
    ours, theirs = Store(tmp_path / "s.sqlite3"), Store(tmp_path / "s.sqlite3")
    org = ours.organizations.bootstrap().org_id
    mine, _ = run_blocking(ours.allowlists.add_entry("organization", org, "198.51.100.0/24", ""))
    assert len(ours.allowlists.get("organization", org)) == 1  # now in memory
    other, _ = run_blocking(theirs.allowlists.add_entry("organization", org, "203.0.113.0/24", ""))
    run_blocking(theirs.allowlists.set_enabled("organization", org, True))
    allowlist = ours.allowlists.get("organization", org)
    assert allowlist.enabled and [e.id for e in allowlist.entries] == [mine.id, other.id]
    run_blocking(ours.allowlists.remove_entry("organization", org, other.id))
    assert [e.id for e in theirs.allowlists.get("organization", org).entries] == [mine.id]
    ours.close()
    theirs.close()


def test_many_removals_keep_answers_right(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A tenth of the 1,024 removals kept before the index is built again, and of the additions a table takes
    # before it is compiled again: a list a tenth as long takes the same paths.
    monkeypatch.setattr(allowlist_record, "_REBUILD_AFTER", 100)
    monkeypatch.setattr(allowlist_record, "_SLACK_FLOOR", 6)
    rebuilt: list[int] = []
    rebuild = AllowlistRecord._rebuild

    def counted(record: AllowlistRecord, entries: list[EntryRecord]) -> None:
        rebuilt.append(len(entries))
        rebuild(record, entries)

    monkeypatch.setattr(AllowlistRecord, "_rebuild", counted)
    store = Store(tmp_path / "s.sqlite3")
    org = store.organizations.bootstrap().org_id

    async def add_then_remove() -> list[str]:
        """On one event loop: a loop per write would cost more than the write."""
        lists = store.allowlists
        ids = [(await lists.add_entry("organization", org, f"10.0.{i}.0/24", ""))[0].id for i in range(120)]
        for entry_id in ids[:110]:  # past the point where the index is built again
            await lists.remove_entry("organization", org, entry_id)
        return ids

    ids = run_blocking(add_then_remove())
    assert 120 - 101 in rebuilt  # built again at the 101st removal, of the 19 entries left
    allowlist = store.allowlists.get("organization", org)
    assert len(allowlist) == 10
    assert not allowlist.contains(IP("10.0.5.1")) and allowlist.contains(IP("10.0.114.1"))
    assert allowlist.holders(IP("10.0.114.1")) == [ids[114]]
    store.close()


def test_first_start_writes_the_credentials_before_the_store_keeps_the_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = SandboxConfig(data_dir=tmp_path / "data")
    out = tmp_path / "creds.json"

    def killed(*_: object, **__: object) -> None:
        raise KeyboardInterrupt  # stands for a kill -9 between the two steps

    monkeypatch.setattr(Organizations, "bootstrap", killed)
    with pytest.raises(KeyboardInterrupt):
        SandboxServer(config, credentials_out=out)
    written = json.loads(out.read_text())
    monkeypatch.undo()
    store = Store(config.database)
    assert store.organizations.is_empty()  # nothing kept: the next start begins again
    store.close()
    server = SandboxServer(config, credentials_out=out)
    try:
        fresh = json.loads(out.read_text())
        assert fresh["admin_key"] != written["admin_key"]
        assert server.store.keys.lookup(fresh["admin_key"]) is not None
        assert (out.stat().st_mode & 0o777) == 0o600
    finally:
        server.stop()


def test_writes_committed_together_are_each_kept_or_refused_alone(tmp_path: Path) -> None:
    """Many writers at once share commits; a duplicate or a refusal among them undoes that write only."""
    from concurrent.futures import ThreadPoolExecutor

    store = Store(tmp_path / "s.sqlite3")
    org = store.organizations.bootstrap().org_id

    def refuse_odd(cidr: str) -> Callable[[object], None]:
        def guard(_list: object) -> None:
            if int(cidr.split(".")[2]) % 2:
                raise PermissionError(cidr)

        return guard

    def add(i: int) -> str:
        cidr = f"10.0.{i % 100}.0/24"  # each cidr asked for twice
        try:
            added = store.allowlists.add_entry("organization", org, cidr, "", guard=refuse_odd(cidr))
            return run_blocking(added)[0].id
        except DuplicateEntry:
            return "duplicate"
        except PermissionError:
            return "refused"

    with ThreadPoolExecutor(32) as pool:
        outcomes = list(pool.map(add, range(200)))
    assert outcomes.count("refused") == 100 and outcomes.count("duplicate") == 50
    kept = {o for o in outcomes if o.startswith("ipal_")}
    assert len(kept) == 50
    store.close()
    reopened = Store(tmp_path / "s.sqlite3")
    entries = reopened.allowlists.get("organization", org).entries
    assert {e.id for e in entries} == kept and len({e.cidr for e in entries}) == 50
    reopened.close()


def fill(database: Path, scope: str, owner_id: str, first: int, count: int) -> None:
    """Entries `first` to `first + count` written as another process (the dashboard) may, raising the
    generation."""
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    rows = [
        (f"ipal_{i:08d}", scope, owner_id, f"10.{i // 65536}.{i // 256 % 256}.{i % 256}/32", "")
        for i in range(first, first + count)
    ]
    db.executemany(
        "INSERT INTO entries (id, scope, owner_id, cidr, description, created_at) VALUES (?, ?, ?, ?, ?, 0)",
        rows,
    )
    db.execute("UPDATE meta SET value = value + 1 WHERE name = 'allowlists_generation'")
    db.execute("COMMIT")
    db.close()


def test_a_write_does_the_same_work_at_10_entries_as_at_10000(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same SQL statements per add and delete whatever the list's length, and no lookup table
    compiled for either (compiling one is work for every entry of the list)."""
    builds: list[int] = []

    class Counted(SegmentTable):
        def __init__(self, *rows: list[tuple[int, int, int]]) -> None:
            builds.append(1)
            super().__init__(*rows)

    monkeypatch.setattr(allowlist_record, "SegmentTable", Counted)
    waiting: list[AllowlistRecord] = []
    store = Store(tmp_path / "s.sqlite3", compile_later=waiting.append)
    project = store.organizations.bootstrap().project_id
    statements: list[str] = []
    # Both of the store's connections: the writer's and the one it reads with.
    for connection in (store.database._writer_db, store.database.reader):
        connection.set_trace_callback(lambda sql: statements.append(re.sub(r"'[^']*'|\b\d+\b", "?", sql)))
    written: dict[int, list[list[str]]] = {}
    for size in (10, 10_000):
        held = len(store.allowlists.get("project", project))
        fill(store.path, "project", project, held, size - held)
        assert len(store.allowlists.get("project", project)) == size  # read in, as after the fill
        for allowlist in waiting:
            allowlist.compile()
        waiting.clear()
        builds.clear()
        for i in range(20):
            statements.clear()
            entry, _ = run_blocking(store.allowlists.add_entry("project", project, f"172.16.0.{i}/32", ""))
            assert run_blocking(store.allowlists.remove_entry("project", project, entry.id))
            written.setdefault(size, []).append(list(statements))
        assert builds == [] and waiting == []
    for small, big in zip(written[10], written[10_000], strict=True):
        assert small == big, "\n".join(difflib.unified_diff(small, big, lineterm=""))
    store.close()


def test_the_first_start_commits_its_organization_from_the_calling_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made before the server's loop serves, from a thread whose own loop may be running (the console's):
    committed by the store's writer and waited for there, with no thread or event loop of its own (which
    were ~0.5 ms of CPU at every first start)."""
    import asyncio
    import threading

    store = Store(tmp_path / "s.sqlite3")
    started: list[str] = []
    real_start = threading.Thread.start

    def start(thread: threading.Thread) -> None:
        started.append(thread.name)
        real_start(thread)

    monkeypatch.setattr(threading.Thread, "start", start)

    async def in_a_running_loop() -> str:
        return store.organizations.bootstrap().org_id

    org = asyncio.run(in_a_running_loop())
    assert started == [] and not store.organizations.is_empty()
    assert [row["id"] for row in store.organizations.orgs()] == [org]
    store.close()
