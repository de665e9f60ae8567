"""The local change history: appended line by line, survives a line cut short, trimmed to its cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.security.history_rows import Change
from app.services.security import history as history_module
from app.services.security.history import ChangeHistory


def test_records_are_kept_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    history = ChangeHistory(path)
    history.record("Local sandbox", "Organization", Change.ADD, "203.0.113.7/32")
    history.record("Local sandbox", "Project: Default", Change.REMOVE, "192.0.2.0/24", "403: blocked")
    again = ChangeHistory(path).records()
    assert [(r.action, r.ok) for r in again] == [("add", True), ("remove", False)]


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    ChangeHistory(path).record("p", "Organization", Change.ADD, "203.0.113.7/32")
    with path.open("a") as file:
        file.write('{"at": "2026-')
    assert len(ChangeHistory(path).records()) == 1


def test_trimmed_to_the_newest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "MAX_RECORDS", 3)
    path = tmp_path / "history.jsonl"
    history = ChangeHistory(path)
    for n in range(5):
        history.record("p", "Organization", Change.ADD, f"203.0.113.{n}/32")
    kept = ChangeHistory(path).records()
    assert [r.what for r in kept] == ["203.0.113.2/32", "203.0.113.3/32", "203.0.113.4/32"]
    assert len(path.read_text().splitlines()) == 3 and json.loads(path.read_text().splitlines()[0])


def test_a_file_written_before_the_action_was_typed_reads_unchanged(tmp_path: Path) -> None:
    """Every action text a console has ever written comes back as its Change, and is written back the same."""
    path = tmp_path / "history.jsonl"
    words = ["add", "remove", "enable", "disable", "import", "expiry", "rotation"]
    lines = [
        {"at": "2026-01-02T03:04:05+00:00", "profile": "p", "scope": "Organization", "action": word}
        | {"what": "203.0.113.7/32", "result": "ok"}
        for word in words
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    history = ChangeHistory(path)
    read = history.records()
    assert [record.action for record in read] == [Change(word) for word in words]
    assert all(type(record.action) is Change for record in read)
    history.record("p", "Organization", Change.ROTATION, "probe")
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [line["action"] for line in written] == [*words, "rotation"]


def test_an_action_this_console_does_not_know_skips_that_line_only(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    ChangeHistory(path).record("p", "Organization", Change.ADD, "203.0.113.7/32")
    unknown = {"at": "x", "profile": "p", "scope": "s", "action": "teleport", "what": "", "result": "ok"}
    without = {"at": "x", "profile": "p", "scope": "s", "what": "", "result": "ok"}
    with path.open("a", encoding="utf-8") as file:
        file.write(json.dumps(unknown) + "\n" + json.dumps(without) + "\n")
    ChangeHistory(path).record("p", "Organization", Change.REMOVE, "203.0.113.7/32")
    assert [r.action for r in ChangeHistory(path).records()] == [Change.ADD, Change.REMOVE]
