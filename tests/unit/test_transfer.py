"""Reading import files and planning an import: formats, canonical forms, duplicates, rejects, the limit."""

from __future__ import annotations

import json

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
