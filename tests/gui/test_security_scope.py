"""The Security tab opens on the scope it showed when the console quit; a project gone since falls back to the
organization's list."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.ui.security.tab import SecurityTab
from tests.gui.reach import profile_of, shown
from tests.gui.test_playground_conversations import close_console, open_console


def loaded(security: SecurityTab) -> bool:
    return security.service.data is not None and bool(security.service.projects)


def test_the_scope_is_restored_on_the_next_launch(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    security = window.security
    window.tabs.setCurrentWidget(security)
    qtbot.waitUntil(lambda: loaded(security))
    project_id = profile_of(window.session).project_id
    scope = security.scope_bar.scope
    scope.setCurrentIndex(scope.findData(project_id))
    scope.activated.emit(scope.currentIndex())  # as a person picks it
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).scope == "project")
    window.close()
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    security = again.security
    qtbot.waitUntil(lambda: loaded(security) and shown(security).scope == "project")
    assert security.service.project_id == project_id
    assert security.scope_bar.scope.currentData() == project_id
    assert security.scope_bar.scope.currentText().startswith("Project:")
    again.close()
    close_console(qtbot, again)


def test_a_scope_whose_project_is_gone_falls_back_to_the_organization(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    window.ui_state.security_scope = "proj_000000000000000000000000"  # a project deleted since
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    security = again.security
    qtbot.waitUntil(lambda: loaded(security))
    assert security.service.project_id is None and shown(security).scope == "organization"
    assert security.scope_bar.scope.currentText() == "Organization"
    close_console(qtbot, again)
