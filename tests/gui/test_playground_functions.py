"""Functions in the Playground, as a person uses them: define a function, watch the model call it, answer
the call, and the loop that goes on until the model answers in text. Against the embedded sandbox, whose
simulated model calls a function when the prompt names it (README, "function calling")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QPushButton
from pytestqt.qtbot import QtBot

from app.core.playground.functions import EXAMPLES
from app.core.playground.turn_details import turn_details
from app.core.playground.turn_record import shown_again
from app.core.playground.turns import Turn, TurnStatus
from app.ui.main_window import MainWindow
from app.ui.playground.function_dialog import FunctionDialog
from app.ui.playground.tab import PlaygroundTab
from tests.gui.reach import body_of, child

from .test_playground import click_box, send, wait_done


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def status(turn: Turn) -> TurnStatus:
    """The turn's status now (read through a call: it changes while the test waits)."""
    return turn.status


def add_example(tab: PlaygroundTab, name: str) -> None:
    """Functions > Examples > the example, as a person picks it from the menu."""
    menu = tab.functions.examples.menu()
    assert menu is not None
    menu.aboutToShow.emit()  # as it opens: the examples are filled then
    action = next(action for action in menu.actions() if action.text().startswith(name + ":"))
    action.trigger()


def open_options(qtbot: QtBot, tab: PlaygroundTab) -> None:
    if not tab.functions.enabled.isChecked():
        click_box(qtbot, tab.functions.enabled)
    button = tab.functions.add_button
    qtbot.waitUntil(lambda: button.isVisible() and button.height() > 10)  # the pane grew to show them


def wait_calling_or_done(qtbot: QtBot, tab: PlaygroundTab) -> None:
    qtbot.waitUntil(
        lambda: (
            bool(tab.service.turns)
            and not tab.service.streaming
            and tab.service.turns[-1].status not in ("pending", "streaming")
        ),
        timeout=15000,
    )


def test_a_call_is_shown_checked_and_answered_by_the_person(qtbot: QtBot, tab: PlaygroundTab) -> None:
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    click_box(qtbot, tab.functions.answer_with_saved)  # answer it myself
    assert not tab.functions.answer_with_saved.isChecked()
    assert tab.functions.list.count() == 1 and "get_weather" in tab.functions.list.item(0).text()

    send(qtbot, tab, "Use get_weather for Paris please")
    wait_calling_or_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == TurnStatus.CALLING, turn.error
    view = tab.views[0]
    assert "called get_weather: type its output" in view.status.text()
    (box,) = view.calls.boxes
    arguments = json.loads(turn.calls[0].arguments)
    assert set(arguments) == {"city", "unit"}
    assert box.verdict.text().startswith("✓")
    assert box.output is not None
    send_button = view.findChild(QPushButton, "send_outputs")
    assert send_button is not None and send_button.isVisible()

    qtbot.mouseClick(send_button, Qt.MouseButton.LeftButton)  # nothing typed yet: said, nothing sent
    assert "Type an output for get_weather" in view.calls.problem.text()
    assert turn.status == TurnStatus.CALLING

    qtbot.keyClicks(box.output, '{"temperature": 21, "sky": "clear"}')
    qtbot.mouseClick(send_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)
    assert status(turn) == TurnStatus.COMPLETED, turn.error
    assert turn.rounds == 2
    assert "get_weather returned" in turn.text and "clear" in turn.text
    assert turn.calls[0].output == '{"temperature": 21, "sky": "clear"}'
    assert "clear" in tab.views[0].answer.toPlainText()
    # The request that sent the output back chained on the response that made the call.
    (followup,) = turn.followups
    assert followup["input"] == [
        {"type": "function_call_output", "call_id": turn.calls[0].call_id, "output": turn.calls[0].output}
    ]
    assert followup["previous_response_id"]


def test_a_saved_output_answers_by_itself(qtbot: QtBot, tab: PlaygroundTab) -> None:
    open_options(qtbot, tab)
    add_example(tab, "calculate")
    send(qtbot, tab, "Please calculate (2 + 3) * 4")
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == TurnStatus.COMPLETED, turn.error
    assert turn.calls[0].answered_by_saved and turn.calls[0].output == EXAMPLES[1].mock_output
    assert "calculate returned" in turn.text
    assert "the saved output" in tab.views[0].calls.boxes[0].verdict.text()


def test_the_loop_stops_at_its_bound_and_says_so(qtbot: QtBot, tab: PlaygroundTab) -> None:
    open_options(qtbot, tab)
    add_example(tab, "calculate")
    tab.functions.choice.setCurrentIndex(tab.functions.choice.findData("required"))
    tab.functions.max_rounds.setValue(2)
    send(qtbot, tab, "Please calculate 1 + 1")  # required: the model calls again after every output
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == TurnStatus.INCOMPLETE
    assert turn.rounds == 2 and len(turn.calls) == 2 and turn.pending_calls
    assert "after 2 rounds" in tab.views[0].status.text()


def test_parallel_calls_are_answered_together_and_stop_ends_the_wait(
    qtbot: QtBot, tab: PlaygroundTab
) -> None:
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    add_example(tab, "query_database")
    click_box(qtbot, tab.functions.answer_with_saved)
    send(qtbot, tab, "Call get_weather and then query_database")
    wait_calling_or_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert [call.name for call in turn.calls] == ["get_weather", "query_database"]
    view = tab.views[0]
    first, second = view.calls.boxes
    assert first.output is not None
    qtbot.keyClicks(first.output, "sunny")
    send_button = view.findChild(QPushButton, "send_outputs")
    assert send_button is not None
    qtbot.mouseClick(send_button, Qt.MouseButton.LeftButton)
    assert "query_database" in view.calls.problem.text() and turn.status == TurnStatus.CALLING
    use_saved = second.findChild(QPushButton, "use_saved_output")
    assert use_saved is not None  # the saved output is offered, not sent by itself (the switch is off)
    qtbot.keyClick(tab, Qt.Key.Key_Escape)  # Stop: the loop ends where it is
    assert status(turn) == TurnStatus.STOPPED
    assert not child(view, QPushButton, "send_outputs").isVisible()


def test_parallel_off_and_a_named_function_choice_are_sent(qtbot: QtBot, tab: PlaygroundTab) -> None:
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    add_example(tab, "calculate")
    tab.functions.choice.setCurrentIndex(tab.functions.choice.findData("function:calculate"))
    click_box(qtbot, tab.functions.parallel)
    body: dict[str, Any] = dict(tab.service.build_body("hello", [], tab.options()))
    assert body["tool_choice"] == {"type": "function", "name": "calculate"}
    assert body["parallel_tool_calls"] is False
    assert [tool["name"] for tool in body["tools"]] == ["get_weather", "calculate"]
    assert all("mock_output" not in tool for tool in body["tools"])
    click_box(qtbot, tab.functions.enabled)  # off: nothing offered
    assert "tools" not in tab.service.build_body("hello", [], tab.options())


def test_add_edit_duplicate_remove_and_the_library(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    open_options(qtbot, tab)
    dialog = tab.functions.add_function()
    assert isinstance(dialog, FunctionDialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.keyClicks(dialog.name, "lookup order")
    assert "letters, digits" in dialog.check.text() and not ok.isEnabled()
    dialog.name.clear()
    qtbot.keyClicks(dialog.name, "lookup_order")
    dialog.parameters.setPlainText('{"type": "object", "properties": {"id": {"type": "nope"}}}')
    assert "not a valid JSON Schema" in dialog.check.text() and not ok.isEnabled()
    dialog.parameters.setPlainText('{"type": "object", "properties": {"id": {"type": "integer"}}')
    assert "not valid JSON" in dialog.check.text()
    dialog.parameters.setPlainText('{"type": "object", "properties": {"id": {"type": "integer"}}}')
    click_box(qtbot, dialog.strict)
    assert "additionalProperties" in dialog.check.text() and not ok.isEnabled()
    click_box(qtbot, dialog.strict)
    assert ok.isEnabled() and dialog.check.text().startswith("✓")
    click_box(qtbot, dialog.keep)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert tab.functions.functions[0].name == "lookup_order"

    tab.functions.list.setCurrentRow(0)
    qtbot.mouseClick(tab.functions.duplicate_button, Qt.MouseButton.LeftButton)
    assert [item.name for item in tab.functions.functions] == ["lookup_order", "lookup_order_copy"]
    tab.functions.list.setCurrentRow(1)
    edit = tab.functions.edit_selected()
    assert edit is not None
    edit.description.setText("Find one order")
    qtbot.mouseClick(edit.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    assert tab.functions.functions[1].description == "Find one order"
    qtbot.mouseClick(tab.functions.remove_button, Qt.MouseButton.LeftButton)
    assert [item.name for item in tab.functions.functions] == ["lookup_order"]
    qtbot.mouseClick(tab.functions.remove_button, Qt.MouseButton.LeftButton)
    assert tab.functions.functions == []

    # The library outlives the conversation: it is a file of its own, read by the next panel.
    assert [item.name for item in tab.function_library.definitions] == ["lookup_order"]
    saved = json.loads(tab.function_library.path.read_text())
    assert saved["functions"][0]["parameters"]["properties"]["id"]["type"] == "integer"
    tab.functions._fill_library_menu()
    (action,) = tab.functions.library_menu.actions()
    action.trigger()
    assert [item.name for item in tab.functions.functions] == ["lookup_order"]


def test_a_reopened_conversation_looks_as_it_did(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab, tmp_path: Path
) -> None:
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    tab.web_search.setChecked(True)
    send(qtbot, tab, "Search the tides, then get_weather for Brest")
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == TurnStatus.COMPLETED and turn.calls and turn.calls[0].answered_by_saved
    searches_before = tab.views[0].search_label.text()
    conversation_id = tab.keeper.current_id
    assert conversation_id

    tab.keeper.new()
    tab.functions.set_tool_settings(type(turn.tools)())  # the panel emptied meanwhile
    assert tab.keeper.open(conversation_id)
    reopened = tab.service.turns[0]
    view = tab.views[0]
    assert [call.name for call in reopened.calls] == ["get_weather"]
    assert reopened.calls[0].output == turn.calls[0].output
    assert view.calls.boxes and "✓ The arguments match the schema" in view.calls.boxes[0].verdict.text()
    assert view.search_label.text() == searches_before and searches_before
    # Its items once each: saved again (as an answered turn is), nothing doubles.
    assert turn_details(reopened) == turn_details(turn)
    again, first = shown_again(reopened), shown_again(turn)
    assert (again["items"], again["citations"]) == (first["items"], first["citations"])
    assert body_of(reopened).get("tools")
    assert reopened.timeline and reopened.headers
    # The functions it was sent with are back in the panel.
    assert [item.name for item in tab.functions.functions] == ["get_weather"]
    # The exports include the calls and their outputs.
    markdown, document = tmp_path / "talk.md", tmp_path / "talk.json"
    assert tab.conversations.export(conversation_id, markdown)
    assert tab.conversations.export(conversation_id, document)
    assert "**Function call** `get_weather`" in markdown.read_text() and "light rain" in markdown.read_text()
    exported = json.loads(document.read_text())
    assert exported["turns"][0]["details"]["calls"][0]["output"] == turn.calls[0].output
    # Find finds text in the arguments and the outputs.
    tab.find_bar.open_bar()
    qtbot.keyClicks(tab.find_bar.field, "light rain")
    qtbot.waitUntil(lambda: "of" in tab.find_bar.count.text(), timeout=3000)


def test_compare_reruns_with_the_functions_and_the_outputs_given(qtbot: QtBot, tab: PlaygroundTab) -> None:
    from tests.gui.test_playground_compare import CLICK, compare_window, run_on

    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    click_box(qtbot, tab.functions.answer_with_saved)
    send(qtbot, tab, "Use get_weather for Lyon")
    wait_calling_or_done(qtbot, tab)
    view = tab.views[0]
    (box,) = view.calls.boxes
    assert box.output is not None
    qtbot.keyClicks(box.output, "hail, 2 degrees")
    send_button = view.findChild(QPushButton, "send_outputs")
    assert send_button is not None
    qtbot.mouseClick(send_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)

    qtbot.mouseClick(tab.sidebar.compare_button, CLICK)
    dialog = compare_window(qtbot, tab)
    run_on(qtbot, dialog, "service-think")
    rerun = dialog.rows[0].rerun
    assert rerun is not None and rerun.status == TurnStatus.COMPLETED, rerun and rerun.error
    assert [tool["name"] for tool in body_of(rerun)["tools"]] == ["get_weather"]
    assert rerun.calls[0].output == "hail, 2 degrees"  # answered as the original was
    assert "hail, 2 degrees" in rerun.text


def test_the_model_box_says_which_models_call_functions(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    qtbot.waitUntil(lambda: bool(console.session.model_functions), timeout=10000)
    assert "calls functions" in tab.model.toolTip()  # the sandbox says so for each of its models
    open_options(qtbot, tab)
    assert not tab.functions.support.isVisible()
    # A server that says a model does not call functions (an upstream model without tools, say).
    console.session.model_functions[tab.model.currentText()] = False
    console.session.models_changed.emit()
    assert "does not call functions" in tab.model.toolTip()
    assert tab.functions.support.isVisible() and "not called" in tab.functions.support.text()


def test_leaving_a_conversation_that_waits_for_outputs_keeps_each_conversation_whole(
    qtbot: QtBot, tab: PlaygroundTab
) -> None:
    """The waiting turn ends in its own conversation: opening another saved one wrote it over that one's
    first turn, and New conversation saved it again as a new conversation, under its title."""
    send(qtbot, tab, "How do CIDR ranges work?")
    wait_done(qtbot, tab)
    other = tab.keeper.current_id
    assert other
    tab.keeper.new()
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    click_box(qtbot, tab.functions.answer_with_saved)
    send(qtbot, tab, "Use get_weather for Paris please")
    wait_calling_or_done(qtbot, tab)
    waiting = tab.keeper.current_id
    assert waiting and tab.service.turns[0].status == TurnStatus.CALLING

    assert tab.keeper.open(other)
    saved_other = tab.conversations.load(other)
    assert saved_other is not None and [turn.prompt for turn in saved_other.turns] == [
        "How do CIDR ranges work?"
    ]
    saved_waiting = tab.conversations.load(waiting)
    assert saved_waiting is not None and saved_waiting.turns[0].status == TurnStatus.STOPPED.value

    assert tab.keeper.open(waiting)
    count = len(tab.conversations.summaries())
    tab.keeper.new()
    assert len(tab.conversations.summaries()) == count  # nothing saved until the new one's first turn


def test_the_functions_panel_is_built_closed_and_opens_whole(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    """A launch shows only the Functions switch: the controls behind it are built when it is first turned
    on (most sessions never open it), and then show what was said meanwhile."""
    assert tab.functions.findChild(QPushButton, "function_add") is None  # not built at the launch
    qtbot.waitUntil(lambda: bool(console.session.model_functions), timeout=10000)
    console.session.model_functions[tab.model.currentText()] = False  # said before the panel opens
    console.session.models_changed.emit()
    assert tab.functions.findChild(QPushButton, "function_add") is None
    click_box(qtbot, tab.functions.enabled)
    button = tab.functions.add_button
    assert tab.functions.findChild(QPushButton, "function_add") is button
    qtbot.waitUntil(lambda: button.isVisible() and button.height() > 10)
    assert tab.functions.support.isVisible() and "not called" in tab.functions.support.text()
    assert tab.functions.list.count() == 0 and tab.functions.choice.currentData() == "auto"
    assert not tab.functions.edit_button.isEnabled()  # nothing chosen to edit yet
    assert tab.functions.body.window() is console  # inside the window, not a window of its own
    click_box(qtbot, tab.functions.enabled)
    qtbot.waitUntil(lambda: not button.isVisible())
