"""The keys table: what each column says, and sorting by the value behind it ("never" before any time)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.api.keys import ApiKey
from app.models.keys import CREATED, LAST_USED, NAME, OWNER, KeysModel

NOW = 1_800_000_000
KEYS = [
    ApiKey(id="key_a", name="deploy", created_at=NOW - 86_400 * 10, last_used_at=NOW - 86_400 * 3),
    ApiKey(
        id="key_b",
        name="CI",
        created_at=NOW - 86_400,
        owner={"type": "service_account", "service_account": {"name": "CI"}},
    ),
    ApiKey(id="key_c", name="", created_at=NOW - 60, last_used_at=NOW - 5),
]


def names(model: KeysModel) -> list[str]:
    return [model.data(model.index(row, NAME)) for row in range(model.rowCount())]


def test_columns_say_ago_owner_and_which_key_this_console_uses() -> None:
    model = KeysModel(clock=lambda: NOW)
    model.set_keys(KEYS, {"key_c"})
    assert names(model) == ["deploy", "CI", "(no name) (this console)"]
    assert [model.data(model.index(row, LAST_USED)) for row in range(3)] == [
        "3 days ago",
        "never",
        "just now",
    ]
    assert model.data(model.index(1, OWNER)) == "service account: CI"


def test_sorted_by_last_use_never_first_then_by_name() -> None:
    model = KeysModel(clock=lambda: NOW)
    model.set_keys(KEYS, set())
    model.sort(LAST_USED, Qt.SortOrder.AscendingOrder)
    assert names(model) == ["CI", "deploy", "(no name)"]
    model.sort(NAME, Qt.SortOrder.DescendingOrder)
    assert names(model) == ["deploy", "CI", "(no name)"]
    model.sort(CREATED, Qt.SortOrder.DescendingOrder)
    assert names(model)[0] == "(no name)"
