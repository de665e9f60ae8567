"""Reading import files and planning an import: formats, canonical forms, duplicates, rejects, the limit."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.netrules.transfer import (
    FileError,
    SourceLine,
    Status,
    export_csv,
    export_json,
    plan_import,
    read_entries,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("203.0.113.7\n2001:db8::/48\n", [(1, "203.0.113.7", ""), (2, "2001:db8::/48", "")]),
        ("\ufeffcidr,description\n203.0.113.7,home\n", [(2, "203.0.113.7", "home")]),
        ("description,address\nhome,203.0.113.7\n", [(2, "203.0.113.7", "home")]),
        ("# comment\n\n203.0.113.7 , spaced \n", [(3, "203.0.113.7", "spaced")]),
        ('203.0.113.0/24,"office, main"\n', [(1, "203.0.113.0/24", "office, main")]),
        (
            '["203.0.113.7", {"cidr": "192.0.2.0/24", "description": "lab"}]',
            [(1, "203.0.113.7", ""), (2, "192.0.2.0/24", "lab")],
        ),
        ('{"object": "ip_allowlist", "entries": [{"cidr": "192.0.2.0/24"}]}', [(1, "192.0.2.0/24", "")]),
    ],
)
def test_reads_csv_text_and_json(text: str, expected: list[tuple[int, str, str]]) -> None:
    assert [(s.number, s.text, s.description) for s in read_entries(text)] == expected


@pytest.mark.parametrize("text", ['{"entries": "no"}', "[1, 2", '"just a string"'])
def test_unreadable_json_is_a_file_error(text: str) -> None:
    with pytest.raises(FileError):
        read_entries(text, "x.json")


def lines(*texts: str) -> list[SourceLine]:
    return [SourceLine(number, text) for number, text in enumerate(texts, start=1)]


def test_plan_marks_each_line() -> None:
    existing = [{"id": "ipal_1", "cidr": "198.51.100.0/24"}]
    plan = plan_import(
        lines("198.51.100.0/24", "::ffff:203.0.113.7", "203.0.113.7/32", "10.0.0.1/8", "", "192.168.0.0/16"),
        existing,
        limit=1000,
    )
    statuses = [line.status for line in plan.lines]
    assert statuses == [
        Status.DUPLICATE_OF_ENTRY,
        Status.ADD,
        Status.DUPLICATE_IN_FILE,
        Status.REJECTED,
        Status.REJECTED,
        Status.ADD,
    ]
    assert plan.lines[1].canonical == "203.0.113.7/32"  # mapped IPv6 is stored as IPv4
    assert "ipal_1" in plan.lines[0].notes[0] and "line 2" in plan.lines[2].notes[0]
    assert any("10.0.0.0/8" in note for note in plan.lines[3].notes)
    assert any("private range" in note for note in plan.lines[5].notes)
    assert plan.room_before == 999 and plan.room_after == 997


def test_plan_notes_overlaps_within_the_file_and_with_the_list() -> None:
    plan = plan_import(
        lines("203.0.113.0/24", "203.0.113.8/29"), [{"id": "ipal_1", "cidr": "203.0.0.0/16"}], 10
    )
    assert "covered by 203.0.0.0/16" in " ".join(plan.lines[0].notes)
    assert "covered by 203.0.113.0/24 (line 1)" in " ".join(plan.lines[1].notes)


def test_plan_respects_the_limit_and_long_descriptions() -> None:
    existing = [{"id": f"ipal_{i}", "cidr": f"192.0.2.{i}/32"} for i in range(9)]
    plan = plan_import(
        [SourceLine(1, "203.0.113.1"), SourceLine(2, "203.0.113.2"), SourceLine(3, "203.0.113.3", "x" * 201)],
        existing,
        limit=10,
    )
    assert [line.status for line in plan.lines] == [Status.ADD, Status.OVER_LIMIT, Status.REJECTED]
    assert plan.room_after == 0 and "200" in plan.lines[2].notes[0]


def test_export_reads_back_as_the_same_entries() -> None:
    entries = [
        {"id": "ipal_1", "cidr": "198.51.100.0/24", "description": 'office, "main"', "created_at": 1},
        {"id": "ipal_2", "cidr": "2001:db8::/48", "description": "", "created_at": 2},
    ]
    for text in (export_csv(entries), export_json(entries, {"scope": "organization"})):
        back = read_entries(text)
        assert [(s.text, s.description) for s in back] == [(e["cidr"], e["description"]) for e in entries]
    assert (
        json.loads(export_json(entries, {"scope": "project", "project_id": "proj_1"}))["project_id"]
        == "proj_1"
    )


def test_export_dates_are_iso_8601_in_utc() -> None:
    entries: list[dict[str, Any]] = [
        {"id": "ipal_1", "cidr": "198.51.100.0/24", "description": "", "created_at": 1795433700.25},
        {"id": "ipal_2", "cidr": "2001:db8::/48", "description": "", "created_at": None},
    ]
    rows = export_csv(entries).splitlines()
    assert rows[1] == "198.51.100.0/24,,2026-11-23T11:35:00Z,ipal_1" and rows[2] == "2001:db8::/48,,,ipal_2"
    exported = json.loads(export_json(entries, {"scope": "organization"}))["entries"]
    assert [entry["created_at"] for entry in exported] == ["2026-11-23T11:35:00Z", None]


@pytest.mark.parametrize("created_at", ["1795433700", "1795433700.25", "2026-11-23T11:35:00Z"])
def test_import_reads_files_dated_either_way(created_at: str) -> None:
    text = f"cidr,description,created_at,id\n198.51.100.0/24,office,{created_at},ipal_1\n"
    document = json.dumps({"entries": [{"cidr": "198.51.100.0/24", "created_at": created_at}]})
    for read in (read_entries(text), read_entries(document)):
        assert plan_import(read, [], 10).to_send[0].canonical == "198.51.100.0/24"


def test_the_whole_space_is_flagged_in_the_plan() -> None:
    plan = plan_import(lines("203.0.113.7", "0.0.0.0/0", "::/0", "::ffff:0.0.0.0/96", "0.0.0.0/1"), [], 10)
    assert [line.admits_all for line in plan.lines] == [False, True, True, True, False]
    warning = plan.allow_all_warning()
    assert "0.0.0.0/0 (line 2)" in warning and "::/0 (line 3)" in warning and "every address" in warning
    assert "line 4" not in warning  # the same 0.0.0.0/0 again: a repeat, not sent twice
    assert "line 4" in plan.leaving_out({1}).allow_all_warning()  # the repeat now goes in its place
    assert plan.leaving_out({1, 2, 3}).allow_all_warning() == ""


def test_a_line_left_out_frees_its_room_and_its_repeats() -> None:
    plan = plan_import(lines("203.0.113.1", "203.0.113.2", "203.0.113.1", "nonsense", "203.0.113.3"), [], 2)
    assert [line.status for line in plan.lines] == [
        Status.ADD,
        Status.ADD,
        Status.DUPLICATE_IN_FILE,
        Status.REJECTED,
        Status.OVER_LIMIT,
    ]
    again = plan.leaving_out({0, 1})
    assert [line.status for line in again.lines] == [
        Status.LEFT_OUT,
        Status.LEFT_OUT,
        Status.ADD,
        Status.REJECTED,
        Status.ADD,
    ]
    assert [line.canonical for line in again.to_send] == ["203.0.113.1/32", "203.0.113.3/32"]
    assert "2 left out by you" in again.summary() and again.room_after == 0
    # A rejected line stays rejected whatever its tick says.
    assert again.leaving_out({3}).lines[3].status is Status.REJECTED
