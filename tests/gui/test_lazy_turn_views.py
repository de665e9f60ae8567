"""A long conversation opens with only its newest turns built; the earlier ones come in as the person scrolls
up, without the page jumping; sending again lets the oldest views go."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication, QLabel, QWidget
from pytestqt.qtbot import QtBot

from app.core.playground.turns import Turn, TurnStatus
from app.ui.main_window import MainWindow
from app.ui.playground.lazy_turn_views import KEEP_TURNS
from app.ui.playground.tab import PlaygroundTab
from app.ui.playground.turn_view import TurnView
from tests.gui.reach import child
from tests.gui.test_playground import send, wait_done

TURNS = 60


def built_views(tab: PlaygroundTab) -> list[TurnView]:
    return [view for view in tab.transcript.findChildren(TurnView) if view.isVisible()]


def reopen(console: MainWindow, qtbot: QtBot, count: int) -> PlaygroundTab:
    """The Playground showing a `count`-turn conversation, as reopening a saved one does."""
    console.tabs.setCurrentWidget(console.playground)
    tab = console.playground
    turns = [
        Turn(
            f"Question {n}",
            [],
            "service-pro",
            True,
            text=f"Answer {n}: " + "word " * 150,
            status=TurnStatus.COMPLETED,
        )
        for n in range(count)
    ]
    turns[5].text += "a **zebra** crossing"  # one word no other turn has, in rendered markdown
    turns[7].prompt += " about Zebras"
    tab.service.restore(turns)
    bar = tab.transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum())
    return tab


@pytest.fixture
def reopened(console: MainWindow, qtbot: QtBot) -> PlaygroundTab:
    """The Playground showing a 60-turn conversation."""
    return reopen(console, qtbot, TURNS)


def test_a_reopened_conversation_builds_only_its_newest_turns(reopened: PlaygroundTab) -> None:
    tab = reopened
    shown = built_views(tab)
    assert 2 <= len(shown) <= KEEP_TURNS + 1
    assert shown[-1].turn is tab.service.turns[-1] and len(tab.views) == TURNS
    earlier = tab.transcript.earlier
    assert earlier.isVisible() and earlier.text() == f"↑ Show {tab.views.first_built:,} earlier turns"
    # Only the last turn offers Regenerate, as in a conversation typed in this session.
    regenerate = [view for view in shown if view.action_buttons["regenerate"].isVisibleTo(tab)]
    assert regenerate == [shown[-1]]


def test_scrolling_to_the_top_brings_earlier_turns_without_moving_the_page(
    qtbot: QtBot, reopened: PlaygroundTab
) -> None:
    tab = reopened
    bar = tab.transcript.verticalScrollBar()
    first = tab.views.first_built
    anchor = tab.views.get(first)
    assert anchor is not None
    bar.setValue(0)  # the person scrolls to the top of what is shown
    seen_at = viewport_y(tab, anchor)
    qtbot.waitUntil(lambda: tab.views.first_built < first)
    # The turn that was at the top is still where the person saw it, now with turns above it.
    qtbot.waitUntil(lambda: bar.value() > 0 and viewport_y(tab, anchor) == seen_at)
    while tab.transcript.earlier.isVisible():  # and again, up to the first question
        qtbot.mouseClick(tab.transcript.earlier, Qt.MouseButton.LeftButton)
    assert tab.views.first_built == 0
    assert child(tab.views[0], QLabel, "message").text() == "Question 0"


def viewport_y(tab: PlaygroundTab, widget: QWidget) -> int:
    return widget.mapTo(tab.transcript.viewport(), QPoint(0, 0)).y()


def test_an_earlier_turn_asked_for_by_index_is_built_and_copies(
    qtbot: QtBot, reopened: PlaygroundTab
) -> None:
    tab = reopened
    view = tab.views[3]
    tab.transcript.ensureWidgetVisible(view.action_buttons["copy"])
    qtbot.mouseClick(view.action_buttons["copy"], Qt.MouseButton.LeftButton)
    assert QApplication.clipboard().text() == tab.service.turns[3].text


def test_sending_lets_the_oldest_views_go(qtbot: QtBot, console: MainWindow) -> None:
    turns = 3 * KEEP_TURNS  # more than are kept, built in batches: what 60 turns show, half the views built
    tab = reopen(console, qtbot, turns)
    while tab.transcript.earlier.isVisible():
        qtbot.mouseClick(tab.transcript.earlier, Qt.MouseButton.LeftButton)
    assert len(built_views(tab)) == turns
    send(qtbot, tab, "Write 50 words")
    wait_done(qtbot, tab, turns + 1)
    qtbot.waitUntil(lambda: len(built_views(tab)) <= KEEP_TURNS + 1)
    assert tab.views.first_built > 0 and tab.transcript.earlier.isVisible()
    assert tab.views[-1].answer.toPlainText() and tab.transcript.following


def test_find_reaches_turns_that_have_no_view_yet(qtbot: QtBot, reopened: PlaygroundTab) -> None:
    tab = reopened
    assert tab.views.get(5) is None
    tab.message.setFocus()
    qtbot.keyClick(tab.message, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert tab.find_bar.isVisible() and tab.find_bar.field.hasFocus()
    qtbot.keyClicks(tab.find_bar.field, "zebra")
    assert tab.find_bar.count.text() == "1 of 2"
    answer = tab.views[5].answer
    assert answer.textCursor().selectedText() == "zebra"
    qtbot.waitUntil(lambda: shown(tab, answer))
    qtbot.keyClick(tab.find_bar.field, Qt.Key.Key_Return)  # the next match: a message, not an answer
    assert tab.find_bar.count.text() == "2 of 2"
    message = child(tab.views[7], QLabel, "message")
    assert message.selectedText() == "Zebra"
    assert not answer.textCursor().hasSelection()  # one match is selected at a time, not each one gone to
    qtbot.keyClick(tab.find_bar.field, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert tab.find_bar.count.text() == "1 of 2"
    assert not message.hasSelectedText()
    qtbot.keyClicks(tab.find_bar.field, "s-none")
    assert tab.find_bar.count.text() == "No matches"
    qtbot.keyClick(tab.find_bar.field, Qt.Key.Key_Escape)
    assert not tab.find_bar.isVisible()


def shown(tab: PlaygroundTab, widget: QWidget) -> bool:
    top = viewport_y(tab, widget)
    return top < tab.transcript.viewport().height() and top + widget.height() > 0


def test_find_counts_without_a_match_object_per_occurrence() -> None:
    from app.ui.playground.find_bar import Match, find_matches

    turns = [Turn("Say it", [], "service-pro", True, text="ab " * 5 + "AB", status=TurnStatus.COMPLETED)] * 3
    matches = find_matches(turns, "ab")
    assert len(matches) == 18 and matches[0] == Match(0, "answer", 0)
    assert matches[6] == Match(1, "answer", 0) and matches[-1] == Match(2, "answer", 5)
    assert len(find_matches(turns, "SAY")) == 3 and find_matches(turns, "SAY")[1] == Match(1, "message", 0)
    assert len(find_matches(turns, "")) == 0


def test_esc_in_find_leaves_the_view_at_the_match(qtbot: QtBot, reopened: PlaygroundTab) -> None:
    tab = reopened
    tab.message.setFocus()
    qtbot.keyClick(tab.message, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(tab.find_bar.field, "zebra")
    answer = tab.views[5].answer
    qtbot.waitUntil(lambda: shown(tab, answer))
    qtbot.wait(200)  # the earlier turns built on the way find their heights
    assert shown(tab, answer)
    qtbot.keyClick(tab.find_bar.field, Qt.Key.Key_Escape)
    assert not tab.find_bar.isVisible() and tab.message.hasFocus()  # the focus back where it was
    qtbot.wait(300)  # the relayouts after the bar closed
    assert shown(tab, answer)  # the view stays where Find took it, not back at the turn that was on top
