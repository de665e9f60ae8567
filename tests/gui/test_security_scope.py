"""The Security tab opens on the scope it showed when the console quit; a project gone since falls back to the
organization's list."""

from __future__ import annotations

from pathlib import Path

from tests.gui.test_playground_conversations import close_console, open_console


def loaded(security) -> bool:
    return security.service.data is not None and bool(security.service.projects)


def test_the_scope_is_restored_on_the_next_launch(qloop, qtbot, tmp_path: Path) -> None:
    window = open_console(qtbot, tmp_path)
    security = window.security
    window.tabs.setCurrentWidget(security)
    qtbot.waitUntil(lambda: loaded(security))
    project_id = window.session.profile.project_id
    scope = security.scope_bar.scope
    scope.setCurrentIndex(scope.findData(project_id))
    scope.activated.emit(scope.currentIndex())  # as a person picks it
    qtbot.waitUntil(lambda: security.service.data is not None and security.service.data.scope == "project")
    window.close()
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    security = again.security
    qtbot.waitUntil(lambda: loaded(security) and security.service.data.scope == "project")
    assert security.service.project_id == project_id
    assert security.scope_bar.scope.currentData() == project_id
    assert security.scope_bar.scope.currentText().startswith("Project:")
    again.close()
    close_console(qtbot, again)


def test_a_scope_whose_project_is_gone_falls_back_to_the_organization(qloop, qtbot, tmp_path: Path) -> None:
    window = open_console(qtbot, tmp_path)
    window.ui_state.security_scope = "proj_000000000000000000000000"  # a project deleted since
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    security = again.security
    qtbot.waitUntil(lambda: loaded(security))
    assert security.service.project_id is None and security.service.data.scope == "organization"
    assert security.scope_bar.scope.currentText() == "Organization"
    close_console(qtbot, again)
