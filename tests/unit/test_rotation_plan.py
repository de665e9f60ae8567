"""The rotation plan without Qt: every step, the moves back, and the store that keeps plans in memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.security.rotation_plan import ListScope, RotationError, RotationPlan, RotationStore, Step

OLD = ("ipal_old", "198.51.100.0/24", "office")
ORG = ListScope(None, "Organization")


def step_of(plan: RotationPlan) -> Step:
    """The plan's step, read afresh (mypy keeps an asserted `plan.step` narrowed across the calls that move it)."""
    return plan.step


def planned() -> RotationPlan:
    return RotationPlan.make("p1", ORG, OLD, "203.0.113.0/24", "")


def test_a_plan_is_validated_and_keeps_the_old_description() -> None:
    plan = planned()
    assert (plan.step, plan.step_number, plan.new_cidr, plan.description) == (
        Step.PLANNED, 1, "203.0.113.0/24", "office"
    )  # fmt: skip
    assert plan.summary() == "198.51.100.0/24 → 203.0.113.0/24 (Organization)"
    with pytest.raises(RotationError, match="host bits"):
        RotationPlan.make("p1", ORG, OLD, "203.0.113.5/24", "")
    with pytest.raises(RotationError, match="same as the old"):
        RotationPlan.make("p1", ORG, OLD, "198.51.100.0/24", "")


def test_step_one_adds_the_new_entry_or_finds_it_listed() -> None:
    plan = planned()
    assert plan.new_entry_added("ipal_new", already_listed=False) == "added the new entry 203.0.113.0/24"
    assert (plan.step, plan.new_id) == (Step.ADDED, "ipal_new")
    again = planned()
    assert "already on the list" in again.new_entry_added("ipal_x", already_listed=True)
    with pytest.raises(RotationError, match="not due"):
        plan.new_entry_added("ipal_new", already_listed=False)


def test_step_two_confirms_only_from_inside_the_new_entry() -> None:
    plan = planned()
    plan.new_entry_added("ipal_new", False)
    assert not plan.probe_seen("198.51.100.7", through_api=True)
    assert plan.step is Step.ADDED and "outside the new entry" in plan.last_probe
    assert not plan.probe_seen(None, through_api=True)
    assert plan.probe_seen("203.0.113.40", through_api=True)
    assert step_of(plan) is Step.CONFIRMED and "an API request succeeded" in plan.last_probe


def test_step_two_goes_back_when_the_new_entry_was_removed_elsewhere() -> None:
    plan = planned()
    plan.new_entry_added("ipal_new", False)
    plan.new_entry_gone()
    assert (plan.step, plan.new_id) == (Step.PLANNED, None) and "no longer on the list" in plan.last_probe


def test_step_three_removes_only_while_still_inside_the_new_entry() -> None:
    plan = planned()
    with pytest.raises(RotationError):
        plan.old_entry_removed(True)  # never before a confirmed probe
    plan.new_entry_added("ipal_new", False)
    plan.probe_seen("203.0.113.40", through_api=False)
    assert not plan.ready_to_remove("198.51.100.7")
    assert plan.step is Step.ADDED and "probe again" in plan.last_probe
    plan.probe_seen("203.0.113.40", through_api=False)
    assert plan.ready_to_remove("203.0.113.9")
    assert (
        plan.old_entry_removed(was_listed=False)
        == "the old entry 198.51.100.0/24 had already been removed elsewhere"
    )
    assert step_of(plan) is Step.DONE and plan.step_number == 4


def test_the_store_reads_once_keeps_in_memory_and_writes_through(tmp_path: Path) -> None:
    path = tmp_path / "rotations.json"
    store = RotationStore(path)
    assert store.load("p1") is None
    plan = planned()
    plan.new_entry_added("ipal_new", False)
    store.save(plan)
    assert json.loads(path.read_text())["p1"]["step"] == "added" and "key" not in path.read_text().lower()
    path.write_text("not json")  # the file is not read again: memory holds the plan
    assert store.load("p1") is plan
    store.save(plan)
    again = RotationStore(path).load("p1")  # a new run reads what was written
    assert again is not None and again.step is Step.ADDED and again.new_id == "ipal_new"
    store.discard("p1")
    assert RotationStore(path).load("p1") is None


def test_an_unreadable_file_or_plan_is_no_plan(tmp_path: Path) -> None:
    path = tmp_path / "rotations.json"
    path.write_text(json.dumps({"p1": {"profile_id": "p1"}, "p2": {**planned().__dict__, "step": "bogus"}}))
    store = RotationStore(path)
    assert store.load("p1") is None and store.load("p2") is None
    path.write_text("[")
    assert RotationStore(path).load("p1") is None
