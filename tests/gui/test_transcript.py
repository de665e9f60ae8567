"""A long conversation stays usable: old turns scroll into view and copy, and the stream follows the end."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from app.core.playground.turns import Turn, TurnStatus
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.reach import simulated
from tests.gui.test_playground import send, wait_done

EARLIER_TURNS = 12  # some eight screens of turns above the next one in the tests' window


@pytest.fixture
def long_tab(console: MainWindow) -> PlaygroundTab:
    """The Playground with a reopened conversation of many finished turns above the next one."""
    console.tabs.setCurrentWidget(console.playground)
    tab = console.playground
    for number in range(EARLIER_TURNS):
        text = f"Answer {number}: " + " ".join(["word"] * 300)
        tab.service.turns.append(
            Turn(f"Question {number}", [], "service-pro", True, text=text, status=TurnStatus.COMPLETED)
        )
        index = len(tab.service.turns) - 1
        tab.view_sync.add_view(index)
        tab.view_sync.finish_view(index)
    return tab


def shown_in_viewport(tab: PlaygroundTab, widget: QWidget) -> bool:
    top = widget.mapTo(tab.transcript.viewport(), QPoint(0, 0)).y()
    return top < tab.transcript.viewport().height() and top + widget.height() > 0


def test_old_turn_scrolls_into_view_and_copies(qtbot: QtBot, long_tab: PlaygroundTab) -> None:
    old = long_tab.views[3]
    assert not shown_in_viewport(long_tab, old)  # the newest turn is shown, not the fourth
    long_tab.transcript.ensureWidgetVisible(old.action_buttons["copy"])
    assert shown_in_viewport(long_tab, old)
    qtbot.mouseClick(old.action_buttons["copy"], Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == long_tab.service.turns[3].text
    old.answer.setFocus()
    qtbot.keyClick(old.answer, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(old.answer, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.clipboard().text().startswith("Answer 3: word word")


def test_new_turn_and_its_stream_are_followed_at_the_end(qtbot: QtBot, long_tab: PlaygroundTab) -> None:
    send(qtbot, long_tab, "Write 600 words")
    wait_done(qtbot, long_tab, EARLIER_TURNS + 1)
    bar = long_tab.transcript.verticalScrollBar()
    newest = long_tab.views[-1]
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() and shown_in_viewport(long_tab, newest.status))
    assert long_tab.transcript.following


def test_scrolling_up_mid_stream_is_not_undone(
    qtbot: QtBot, long_tab: PlaygroundTab, console: MainWindow
) -> None:
    simulated(console.session).delay = 0.002
    send(qtbot, long_tab, "Write 500 words")

    def newest() -> Turn:
        return long_tab.service.turns[-1]

    qtbot.waitUntil(lambda: len(newest().text) > 200)
    bar = long_tab.transcript.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)  # the person scrolls back to read an earlier answer
    wait_done(qtbot, long_tab, EARLIER_TURNS + 1)
    simulated(console.session).delay = 0
    assert newest().status == "completed"
    assert bar.value() < bar.maximum() // 2 + 10 and bar.value() != bar.maximum()
    assert not long_tab.transcript.following


def test_an_old_turn_that_changes_height_leaves_no_gap(qtbot: QtBot, long_tab: PlaygroundTab) -> None:
    old, below = long_tab.views[5], long_tab.views[6]
    column = long_tab.transcript.finished

    layout = column.layout()
    assert layout is not None

    def snug() -> bool:  # the column is exactly as tall as its turns, the next turn right below this one
        fits = column.height() == layout.totalHeightForWidth(column.width())
        return fits and below.y() == old.y() + old.height() + layout.spacing()

    old.reasoning_label.setText(" ".join(["thought"] * 400))
    old.reasoning_toggle.show()
    long_tab.transcript.ensureWidgetVisible(old.reasoning_toggle)
    qtbot.waitUntil(snug)
    before = column.height()
    old.reasoning_toggle.click()
    qtbot.waitUntil(lambda: snug() and column.height() > before + 50)
    old.reasoning_toggle.click()
    qtbot.waitUntil(lambda: snug() and column.height() == before)  # no blank space where it was
