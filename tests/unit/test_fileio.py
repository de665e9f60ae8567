"""The one atomic write, and the one JSON Schema check shared by the console and the sandbox."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from app.api.admin import Entry
from app.common.fileio import write_atomically
from app.common.jsonschema_check import mismatches, schema_problem
from app.core.security.files import TransferError, write_file


def test_write_atomically_replaces_whole_and_private(tmp_path: Path) -> None:
    path = tmp_path / "deeper" / "state.json"
    write_atomically(path, "one")
    write_atomically(path, "two")
    assert path.read_text() == "two"
    assert os.listdir(path.parent) == ["state.json"]  # no partial file left behind
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes and symbolic links")
def test_a_leftover_partial_file_or_a_link_in_its_place_changes_nothing(tmp_path: Path) -> None:
    export = tmp_path / "export.csv"
    leftover = tmp_path / ".export.csv.partial"  # where an earlier version wrote, 0644 from another tool
    leftover.write_text("an earlier run's leftover")
    leftover.chmod(0o644)
    write_atomically(export, "rows")
    assert stat.S_IMODE(export.stat().st_mode) == 0o600

    keys = tmp_path / "keys.json"
    target = tmp_path / "elsewhere.txt"
    target.write_text("not ours")
    (tmp_path / ".keys.json.partial").symlink_to(target)
    write_atomically(keys, "secret")
    assert keys.read_text() == "secret"
    assert not keys.is_symlink()
    assert target.read_text() == "not ours"


def test_a_failed_write_leaves_the_earlier_file_whole(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"
    write_atomically(path, "the earlier export\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(path, "a new export cut short by a lone surrogate: \ud800")
    assert path.read_text() == "the earlier export\n"
    assert os.listdir(tmp_path) == ["export.csv"]  # no partial file left behind


def test_a_failed_list_export_says_so_and_keeps_the_earlier_one(tmp_path: Path) -> None:
    path = tmp_path / "list.csv"
    write_file(path, [Entry(id="ipal_1", cidr="203.0.113.0/24")], {"scope": "organization"})
    earlier = path.read_text()
    bad = Entry(id="ipal_2", cidr="198.51.100.0/24", description="office \udc80")
    with pytest.raises(TransferError, match="cannot be written as UTF-8"):
        write_file(path, [bad], {"scope": "organization"})
    assert path.read_text() == earlier
    assert os.listdir(tmp_path) == ["list.csv"]


def test_schema_problem_and_mismatches() -> None:
    assert schema_problem({"type": "object"}) is None
    assert "is not valid" in (schema_problem({"type": 5}) or "")
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert mismatches({"n": 1}, schema) == []
    found = mismatches({"n": "x"}, schema)
    assert [(m.where, "integer" in m.message) for m in found] == [("n", True)]
    assert mismatches({}, schema)[0].where == "(root)"
