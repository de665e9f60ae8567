"""The local change history: appended line by line, survives a line cut short, trimmed to its cap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.services.security import history as history_module
from app.services.security.history import ChangeHistory


def test_records_are_kept_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    history = ChangeHistory(path)
    history.record("Local sandbox", "Organization", "add", "203.0.113.7/32")
    history.record("Local sandbox", "Project: Default", "remove", "192.0.2.0/24", "403: blocked")
    again = ChangeHistory(path).records()
    assert [(r.action, r.ok) for r in again] == [("add", True), ("remove", False)]


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    ChangeHistory(path).record("p", "Organization", "add", "203.0.113.7/32")
    with path.open("a") as file:
        file.write('{"at": "2026-')
    assert len(ChangeHistory(path).records()) == 1


def test_trimmed_to_the_newest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "MAX_RECORDS", 3)
    path = tmp_path / "history.jsonl"
    history = ChangeHistory(path)
    for n in range(5):
        history.record("p", "Organization", "add", f"203.0.113.{n}/32")
    kept = ChangeHistory(path).records()
    assert [r.what for r in kept] == ["203.0.113.2/32", "203.0.113.3/32", "203.0.113.4/32"]
    assert len(path.read_text().splitlines()) == 3 and json.loads(path.read_text().splitlines()[0])
