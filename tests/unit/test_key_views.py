"""Keys as a person reads them, and the key rotation's plan, without Qt or a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.keys import ApiKey, key_id_of
from app.core.security.key_rotation_plan import KeyRotationError, KeyRotationPlan, KeyRotationStore, KeyStep
from app.core.security.key_views import PermissionsInvalid, ago, parse_permissions, successor_name, unused_for

NOW = 1_800_000_000


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (None, "never"),
        (30, "just now"),
        (60, "1 minute ago"),
        (3 * 86_400 + 5, "3 days ago"),
        (86_400 * 800, "2 years ago"),
    ],
)
def test_ago(seconds: int | None, said: str) -> None:
    assert ago(None if seconds is None else NOW - seconds, NOW) == said


def test_unused_for_counts_a_never_used_key_from_its_creation() -> None:
    old = ApiKey(id="a", created_at=NOW - 40 * 86_400)
    used = ApiKey(id="b", created_at=NOW - 40 * 86_400, last_used_at=NOW - 86_400)
    young = ApiKey(id="c", created_at=NOW - 86_400)
    assert [key.id for key in unused_for([old, used, young], 30, NOW)] == ["a"]


def test_permissions_parse() -> None:
    assert parse_permissions("read-only") == "read_only"
    assert parse_permissions("responses, models") == ["models", "responses"]
    with pytest.raises(PermissionsInvalid):
        parse_permissions("files")


def test_a_nameless_key_gives_its_successor_a_name() -> None:
    assert successor_name(ApiKey(id="key_1", name="CI")) == "CI"
    assert successor_name(ApiKey(id="key_1")) == "successor of key_1"


def test_a_key_is_recognised_by_its_id_or_its_redacted_ends() -> None:
    value = "sk-proj_1234-abcdefghijklmnopqrstuvwxyz"
    assert ApiKey(id=key_id_of(value)).is_value(value)
    assert ApiKey(id="key_x", redacted_value="sk-proj_...wxyz").is_value(value)
    assert not ApiKey(id="key_x", redacted_value="sk-proj_...aaaa").is_value(value)
    assert "abcdefghijklmnopq" not in repr(ApiKey(id=key_id_of(value)))


def test_the_plan_goes_quiet_only_after_the_period_and_back_on_a_use(tmp_path: Path) -> None:
    plan = KeyRotationPlan("p", None, "key_old", "CI", "key_new", NOW, 3600)
    steps: list[KeyStep] = []
    assert not plan.old_key_read(NOW - 10, NOW + 60)
    steps.append(plan.step)
    with pytest.raises(KeyRotationError):
        plan.revoked()
    assert plan.old_key_read(NOW - 10, NOW + 3601)
    steps.append(plan.step)
    assert not plan.old_key_read(NOW + 3602, NOW + 3603)
    steps.append(plan.step)
    assert steps == [KeyStep.CREATED, KeyStep.QUIET, KeyStep.CREATED]
    assert "still in use" in plan.status
    plan.old_key_read(NOW + 3602, NOW + 7300)
    plan.revoked()
    store = KeyRotationStore(tmp_path / "key-rotations.json")
    store.save(plan)
    again = KeyRotationStore(tmp_path / "key-rotations.json").load("p")
    assert again == plan
