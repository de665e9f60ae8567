"""The one atomic write, and the one JSON Schema check shared by the console and the sandbox."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from app.common.fileio import write_atomically
from app.common.jsonschema_check import mismatches, schema_problem


def test_write_atomically_replaces_whole_and_private(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "state.json"
    write_atomically(path, "one")
    write_atomically(path, "two")
    assert path.read_text() == "two"
    assert os.listdir(path.parent) == ["state.json"]  # no partial file left behind
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_schema_problem_and_mismatches() -> None:
    assert schema_problem({"type": "object"}) is None
    assert "is not valid" in (schema_problem({"type": 5}) or "")
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert mismatches({"n": 1}, schema) == []
    found = mismatches({"n": "x"}, schema)
    assert [(m.where, "integer" in m.message) for m in found] == [("n", True)]
    assert mismatches({}, schema)[0].where == "(root)"
