"""The scope box: each read shows the scopes again; the same projects keep the box's items as they are."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.security.scope_bar import ScopeBar


def test_the_same_scopes_again_keep_their_items_and_new_ones_replace_them(qtbot: QtBot) -> None:
    bar = ScopeBar()
    qtbot.addWidget(bar)
    box = bar.scope
    inserted: list[int] = []
    box.model().rowsInserted.connect(lambda _parent, first, last: inserted.append(last - first + 1))
    projects = [("proj_a", "Alpha"), ("proj_b", "Beta")]
    bar.show_scopes(projects, None)
    assert [box.itemText(i) for i in range(box.count())] == [
        "Organization",
        "Project: Alpha",
        "Project: Beta",
    ]
    assert sum(inserted) == 3

    bar.show_scopes(list(projects), "proj_b")  # the next read: the same projects, another scope chosen
    assert sum(inserted) == 3  # nothing cleared and added again
    assert box.currentData() == "proj_b"

    bar.show_scopes([("proj_a", "Alpha renamed")], "proj_b")  # a project gone, another renamed
    assert [box.itemText(i) for i in range(box.count())] == ["Organization", "Project: Alpha renamed"]
    assert box.currentData() is None  # the chosen project is gone: the organization

    empty = ScopeBar()
    qtbot.addWidget(empty)
    empty.show_scopes([], None)  # no projects at all: the organization alone
    assert [empty.scope.itemText(i) for i in range(empty.scope.count())] == ["Organization"]
