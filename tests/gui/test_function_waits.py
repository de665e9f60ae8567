"""A turn waiting for function outputs, as a person meets it: a new message says the calls went unanswered,
Compare says what such a call needs, Ctrl+Enter in an output box sends the outputs, the view follows the
answer that comes after them, the status names what the model called, and an 800x600 window with the
Functions pane open still shows the conversation."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.playground.turns import TurnStatus
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.test_playground import click_box, send, wait_done
from tests.gui.test_playground_functions import add_example, open_options, wait_calling_or_done


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def waiting_for(qtbot: QtBot, tab: PlaygroundTab, prompt: str, *functions: str) -> None:
    """The model calls `functions` (answered by nobody but the person) and waits."""
    open_options(qtbot, tab)
    for name in functions:
        add_example(tab, name)
    click_box(qtbot, tab.functions.answer_with_saved)  # answer them myself
    send(qtbot, tab, prompt)
    wait_calling_or_done(qtbot, tab)
    assert tab.service.turns[-1].status == TurnStatus.CALLING


def test_a_new_message_says_the_waiting_calls_went_unanswered(qtbot: QtBot, tab: PlaygroundTab) -> None:
    waiting_for(qtbot, tab, "Use get_weather for Paris please", "get_weather")
    send(qtbot, tab, "Never mind, tell me a joke")
    wait_done(qtbot, tab, 2)
    first = tab.views[0].status.text()
    assert "Not answered" in first and "get_weather" in first and "new message" in first, first
    assert not first.startswith("Stopped")


def test_compare_says_what_a_waiting_call_needs(qtbot: QtBot, tab: PlaygroundTab) -> None:
    from tests.gui.test_playground_compare import compare_window, rerun_of, run_on

    waiting_for(qtbot, tab, "Use get_weather for Rome please", "get_weather")
    qtbot.keyClick(
        tab.message, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    dialog = compare_window(qtbot, tab)
    run_on(qtbot, dialog, "service-think")
    assert rerun_of(dialog, 0).status == TurnStatus.CALLING
    said = dialog.views[0].rerun.status.text()
    assert "Failed" not in said and "get_weather" in said and "saved output" in said, said


def test_ctrl_enter_in_an_output_box_sends_the_outputs(qtbot: QtBot, tab: PlaygroundTab) -> None:
    waiting_for(qtbot, tab, "Use get_weather for Oslo please", "get_weather")
    (box,) = tab.views[0].calls.boxes
    assert box.output is not None
    box.output.setFocus()
    qtbot.keyClicks(box.output, "snow, -3")
    qtbot.keyClick(box.output, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == TurnStatus.COMPLETED and turn.calls[0].output == "snow, -3"


def test_after_send_outputs_the_view_follows_the_answer(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    console.resize(800, 600)
    send(qtbot, tab, "Write 300 words about the sea, the sky and the long way home")
    wait_done(qtbot, tab)
    waiting_for(qtbot, tab, "Use get_weather for Lima please", "get_weather")
    view = tab.views[1]
    (box,) = view.calls.boxes
    assert box.output is not None
    bar = tab.transcript.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 200)
    bar.setValue(0)  # the person scrolls up to read the calls
    qtbot.keyClicks(box.output, "mild")
    qtbot.mouseClick(view.calls.send, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab, 2)
    qtbot.waitUntil(lambda: bool(view.answer.toPlainText()))
    qtbot.waitUntil(lambda: bar.value() == bar.maximum())
    answer_top = view.answer.mapTo(tab.transcript.viewport(), view.answer.rect().topLeft()).y()
    assert answer_top < tab.transcript.viewport().height()  # the answer is in sight


def test_the_status_names_both_calls(qtbot: QtBot, tab: PlaygroundTab) -> None:
    waiting_for(qtbot, tab, "Call get_weather and then query_database", "get_weather", "query_database")
    said = tab.views[0].status.text()
    assert "called get_weather and query_database: type each output" in said, said


def test_functions_open_at_800x600_leave_the_conversation_most_of_the_height(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    console.resize(800, 600)
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    qtbot.wait(50)
    line = tab.transcript.fontMetrics().lineSpacing()
    splitter = tab.conversation_splitter
    # Before, ten lines (~140 px) beside a six-line message box and the Functions pane.
    assert tab.transcript.height() >= 13 * line, tab.transcript.height()
    assert tab.transcript.height() >= sum(splitter.sizes()) * 0.55
