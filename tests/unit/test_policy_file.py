"""The policy file: read strictly (where a mistake is, said), written back keeping comments and order, and
the plan decided from it (added, removed, changed, the switch, the lockout)."""

from __future__ import annotations

import pytest

from app.api.admin import Allowlist, Entry
from app.api.allowlist_changes import RefusedSource
from app.core.security.policy_file import ListPolicy, PolicyEntry, PolicyError, export_policy, load_policy
from app.core.security.policy_plan import plan_list
from app.core.security.refused_rows import RefusedRows

NOW = 1_800_000_000
TEXT = """\
# the header
[organization]   # the org's list
enabled = true

[[organization.entries]]
cidr = "203.0.113.0/24"   # the office
description = "office"
expires = 2090-01-01T00:00:00Z

[projects.ci]
enabled = false
entries = []
"""


def test_read_canonical_and_expiry() -> None:
    policy = load_policy(TEXT)
    organization, project = policy.lists
    assert organization.project is None and organization.enabled is True
    assert organization.entries == (PolicyEntry("203.0.113.0/24", "office", 3_786_912_000),)
    assert project.project == "ci" and project.enabled is False and project.entries == ()


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[organization]\nentries = [{cidr = "10.0.0.1/8"}]', "entry 1"),
        ('[organization]\nentries = [{cidr = "10.0.0.0/8"}, {cidr = "10.0.0.0/8"}]', "listed twice"),
        ("[organization]\nenabled = 1", "'enabled' must be true or false"),
        ("[somewhere]", r"Unknown table \[somewhere\]"),
        ('[organization]\nentries = [{cidr = "10.0.0.0/8", expires = "soon"}]', "TOML date-time"),
        ("[organization", "Not TOML"),
    ],
)
def test_mistakes_are_named(text: str, said: str) -> None:
    with pytest.raises(PolicyError, match=said):
        load_policy(text)


def test_export_into_the_file_keeps_its_comments_and_reads_back_the_same() -> None:
    lists = [
        ListPolicy(
            None, True, (PolicyEntry("203.0.113.0/24", "office, moved"), PolicyEntry("10.0.0.0/8", "new"))
        ),
        ListPolicy("ci", True, (PolicyEntry("198.51.100.7/32", "runner", NOW),)),
    ]
    text = export_policy(lists, TEXT)
    assert "# the header" in text and "# the org's list" in text and "# the office" in text
    assert load_policy(text).lists == tuple(lists)


def _entry(i: str, cidr: str, description: str = "", expires_at: int | None = None) -> Entry:
    return Entry(id=i, cidr=cidr, description=description, expires_at=expires_at)


def test_the_plan_adds_removes_changes_and_sees_a_lockout() -> None:
    current = Allowlist(
        enabled=False,
        entries=(_entry("a", "198.51.100.7/32", "me"), _entry("b", "203.0.113.0/24", "old")),
        source_ip="198.51.100.7",
        version="v3",
    )
    wanted = ListPolicy(
        None,
        True,
        (
            PolicyEntry("203.0.113.0/24", "office"),
            PolicyEntry("192.0.2.0/24"),
            PolicyEntry("10.0.0.0/8", "", NOW - 1),
        ),
    )
    plan = plan_list(wanted, current, None, NOW)
    assert [e.cidr for e in plan.add] == ["192.0.2.0/24"]  # the expired one of the file is wanted by nobody
    assert [e.id for e in plan.remove] == ["a"] and [c.before.id for c in plan.change] == ["b"]
    assert plan.locks_out and plan.version == "v3"
    assert plan.batch() == {
        "enabled": True,
        "add": [{"cidr": "192.0.2.0/24", "description": "", "expires_at": None}],
        "update": [{"id": "b", "description": "office", "expires_at": None}],
        "remove": ["a"],
    }
    same = ListPolicy(
        None, None, (PolicyEntry("198.51.100.7/32", "me"), PolicyEntry("203.0.113.0/24", "old"))
    )
    assert not plan_list(same, current, None, NOW).changes


def test_refused_rows_sum_per_source_and_a_minute_read_again_replaces_itself() -> None:
    rows = RefusedRows()

    def source(ip: str, minute: int, count: int) -> RefusedSource:
        return RefusedSource(
            source_ip=ip,
            list="project",
            project_id="p",
            minute=minute,
            count=count,
            first_seen=minute + 1,
            last_seen=minute + 50,
            path="/v1/models",
        )

    assert [r.source_ip for r in rows.add([source("10.0.0.1", 60, 2), source("10.0.0.1", 120, 1)])] == [
        "10.0.0.1"
    ]
    assert rows.add([source("10.0.0.1", 120, 5)]) == []  # the same minute, counted on: not a new source
    (row,) = rows.rows()
    assert (row.count, row.first_seen, row.last_seen) == (7, 61, 170) and rows.since == 170
