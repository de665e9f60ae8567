"""The History names what each of the service's events changed: a prompt saved from the Prompts tab reads
as that prompt and its version, as an allowlist change reads as its address."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.history import COLUMNS, HistoryDialog
from app.ui.security.tab import SecurityTab
from tests.gui.reach import dialog_of
from tests.gui.test_prompts_tab import prompts_tab, save


def test_a_saved_prompt_version_reads_as_that_prompt_and_version(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab
) -> None:
    prompts = prompts_tab(console)
    qtbot.mouseClick(prompts.new_button, Qt.MouseButton.LeftButton)
    qtbot.keyClicks(prompts.editor.name, "Trip planner")
    qtbot.keyClicks(prompts.editor.message, "Plan a day in {{city}}.")
    save(qtbot, prompts, "first draft", 1)
    qtbot.keyClicks(prompts.editor.message, " Be brief.")
    save(qtbot, prompts, "shorter answers", 2)

    console.tabs.setCurrentWidget(tab)
    tab.opener.open("history")
    dialog = dialog_of(tab, "history", HistoryDialog)
    action, what = COLUMNS.index("Action"), COLUMNS.index("What")
    model = dialog.proxy
    qtbot.waitUntil(lambda: model.rowCount() >= 2, timeout=10000)
    rows = [(model.index(r, action).data(), model.index(r, what).data()) for r in range(model.rowCount())]
    assert rows[:2] == [
        ("prompt saved", "Trip planner v2 “shorter answers”"),
        ("prompt saved", "Trip planner v1 “first draft”"),
    ], rows
    dialog.close()
