"""Compare on another model, as a person uses it: a conversation re-run turn by turn, the original answer on
the left and the new one on the right, errors on the side they happened, and the re-run saved beside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea
from pytestqt.qtbot import QtBot

from app.core.playground.turns import Turn
from app.services.session.session import ConnectionState
from app.ui.main_window import MainWindow
from app.ui.playground.compare import CompareDialog
from app.ui.playground.compare_row import SideView
from app.ui.playground.tab import PlaygroundTab
from tests.api.servers import RESET, ScriptedServer, reply, sse, sse_head
from tests.gui.reach import body_of, child, client_of, simulated
from tests.gui.test_playground import png, send, sse_answer, use_server, wait_done
from tests.gui.test_playground_options import choose, type_into

CLICK = Qt.MouseButton.LeftButton


def compare_window(qtbot: QtBot, tab: PlaygroundTab) -> CompareDialog:
    """The compare window just opened (one closed before may still await deletion, hidden)."""

    def shown() -> list[CompareDialog]:
        return [dialog for dialog in tab.findChildren(CompareDialog) if dialog.isVisible()]

    qtbot.waitUntil(lambda: len(shown()) == 1)
    return shown()[0]


def send_all(qtbot: QtBot, tab: PlaygroundTab, *prompts: str) -> None:
    for count, prompt in enumerate(prompts, 1):
        send(qtbot, tab, prompt)
        wait_done(qtbot, tab, count)


def run_on(qtbot: QtBot, dialog: CompareDialog, model: str, timeout: int = 15000) -> None:
    choose(qtbot, dialog.model, model)
    qtbot.mouseClick(dialog.run_button, CLICK)
    qtbot.waitUntil(lambda: dialog.job is not None and not dialog.job.running, timeout=timeout)


def opened(dialog: CompareDialog | None) -> CompareDialog:
    assert dialog is not None, "no comparison dialog opened"
    return dialog


def rerun_of(dialog: CompareDialog, row: int) -> Turn:
    """The re-run turn of a row, once it has run."""
    rerun = dialog.rows[row].rerun
    assert rerun is not None, f"row {row} has not run"
    return rerun


def right(dialog: CompareDialog, row: int) -> SideView:
    return dialog.views[row].rerun


def test_a_conversation_is_rerun_side_by_side_and_saved(qtbot: QtBot, console: MainWindow) -> None:
    tab = console.playground
    send_all(qtbot, tab, "My name is Ada", "What is my name?")
    originals = [turn.text for turn in tab.service.turns]
    qtbot.mouseClick(tab.sidebar.compare_button, CLICK)
    dialog = compare_window(qtbot, tab)
    assert dialog.model.currentText() != "service-pro"  # another model is offered first
    assert right(dialog, 0).status.text() == "Not run yet."
    run_on(qtbot, dialog, "service-think")

    for row, view in enumerate(dialog.views):
        assert view.prompt.text().endswith(tab.service.turns[row].prompt)
        assert view.original.answer.toPlainText().strip() == originals[row].strip()
        assert view.original.heading.text() == "service-pro · original"
        assert view.rerun.heading.text() == "service-think · re-run"
        rerun = rerun_of(dialog, row)
        assert rerun.status == "completed" and rerun.model == "service-think"
        assert "first token" in view.rerun.status.text() and "total" in view.rerun.status.text()
        assert "first token" in view.original.status.text()
    second = rerun_of(dialog, 1)
    assert body_of(second)["input"][1] == {"role": "assistant", "content": rerun_of(dialog, 0).text}
    assert "Ada" in second.text  # the re-run follows its own thread
    assert "2 of 2 turns answered" in dialog.progress.text()

    sidebar = tab.sidebar
    qtbot.waitUntil(lambda: sidebar.model.summaries[0].title == "My name is Ada · on service-think")
    assert sidebar.model.summaries[0].turn_count == 2 and sidebar.model.summaries[0].model == "service-think"
    qtbot.mouseClick(dialog.open_button, CLICK)
    job = dialog.job
    assert job is not None
    qtbot.waitUntil(lambda: tab.keeper.current_id == job.conversation_id)
    assert [turn.text for turn in tab.service.turns] == [
        rerun_of(dialog, row).text for row in range(len(dialog.rows))
    ]


def test_a_saved_conversation_is_compared_from_the_sidebar_with_its_options(
    qtbot: QtBot, console: MainWindow, tmp_path: Path
) -> None:
    tab = console.playground
    qtbot.mouseClick(tab.params_toggle, CLICK)
    type_into(qtbot, tab.options_panel.temperature, "0.4")
    tab.attach_file(png(tmp_path / "chart.png"))
    send(qtbot, tab, "What is in the picture?")
    wait_done(qtbot, tab)
    qtbot.keyClick(tab, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    dialog = compare_window(qtbot, tab)  # the open conversation: its image is still at hand
    assert not dialog.views[0].notes.isVisibleTo(dialog)
    run_on(qtbot, dialog, "service-ultra")
    body = body_of(rerun_of(dialog, 0))
    assert body["temperature"] == 0.4 and body["input"][0]["content"][1]["type"] == "input_image"
    assert "320×200" in rerun_of(dialog, 0).text
    dialog.close()

    qtbot.mouseClick(tab.sidebar.new_button, CLICK)  # the picture conversation is now a saved one only
    sidebar = tab.sidebar
    qtbot.waitUntil(lambda: len(sidebar.model.summaries) == 2)
    row = next(i for i, s in enumerate(sidebar.model.summaries) if s.title == "What is in the picture?")
    menu = sidebar.menu_for(sidebar.model.index(row))  # what a right-click on the row shows
    assert menu is not None
    next(action for action in menu.actions() if action.text() == "Compare on another model…").trigger()
    dialog = compare_window(qtbot, tab)
    assert dialog.views[0].notes.isVisibleTo(dialog) and "chart.png" in dialog.views[0].notes.text()
    choose(qtbot, dialog.model, "service-think")
    assert "chart.png" in dialog.views[0].notes.text()
    run_on(qtbot, dialog, "service-think")
    assert body_of(rerun_of(dialog, 0))["temperature"] == 0.4  # the options it was sent with, kept
    assert body_of(rerun_of(dialog, 0))["input"] == "What is in the picture?"


def test_a_403_is_shown_on_the_rerun_side_and_the_rest_is_not_run(qtbot: QtBot, console: MainWindow) -> None:
    tab = console.playground
    session = console.session
    send_all(qtbot, tab, "one", "two", "three")
    session.set_simulated_ip("203.0.113.77")

    async def lock() -> None:
        await client_of(session).allowlists.add("198.51.100.0/24")
        await client_of(session).allowlists.set_enabled(True, force=True)

    session.tasks.start("lock", lock())
    qtbot.waitUntil(lambda: not session.tasks.running("lock"))
    qtbot.mouseClick(tab.sidebar.compare_button, CLICK)
    dialog = compare_window(qtbot, tab)
    run_on(qtbot, dialog, "service-ultra")
    assert right(dialog, 0).status.text().startswith("403: the IP allowlist refused this request")
    assert "203.0.113.77" in right(dialog, 0).status.text()
    for row in (1, 2):
        assert right(dialog, row).status.text() == "Not run: the IP allowlist refused the turn before (403)."
        assert dialog.views[row].original.answer.toPlainText()  # the originals are still there to read
    assert "0 of 3 turns answered" in dialog.progress.text()
    assert session.state == ConnectionState.BLOCKED and "203.0.113.77" in session.detail  # the toolbar too


def test_429_and_a_dropped_stream_stay_on_their_turn_and_the_next_one_runs(
    qtbot: QtBot, console: MainWindow
) -> None:
    tab = console.playground
    send_all(qtbot, tab, "alpha", "beta", "gamma")
    limited = reply(
        "429 Too Many Requests",
        b'{"error": {"message": "Slow down.", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}',
        {"content-type": "application/json"},
    )
    delta = json.dumps({"type": "response.output_text.delta", "delta": "Half an answ"})
    dropped = RESET + sse_head() + sse("response.output_text.delta", delta)
    text = "The third answer."
    message = {"type": "message", "content": [{"type": "output_text", "text": text}]}
    answered = sse_answer(text, {"id": "resp_3", "status": "completed", "output": [message]})
    with ScriptedServer([limited, dropped, answered]) as server:
        use_server(qtbot, console, server.url)
        dialog = opened(tab.open_compare())
        run_on(qtbot, dialog, "service-think")
    assert right(dialog, 0).status.text() == "429: rate limited."
    assert right(dialog, 1).status.text().startswith("Connection lost:")
    assert "partial answer is kept" in right(dialog, 1).status.text()
    assert right(dialog, 1).answer.toPlainText() == "Half an answ"
    assert right(dialog, 2).answer.toPlainText() == text and "first token" in right(dialog, 2).status.text()
    third = json.loads(server.requests[2][2])
    assert third["input"] == [  # the failed turn is left out; the partial answer is the thread's
        {"role": "user", "content": "beta"},
        {"role": "assistant", "content": "Half an answ"},
        {"role": "user", "content": "gamma"},
    ]
    qtbot.waitUntil(lambda: tab.sidebar.model.summaries[0].turn_count == 3)


def test_stop_ends_the_comparison_cleanly(qtbot: QtBot, console: MainWindow) -> None:
    tab = console.playground
    send_all(qtbot, tab, "Write 3000 words about the sea", "And about rivers")
    dialog = opened(tab.open_compare())
    simulated(console.session).delay = 0.003
    choose(qtbot, dialog.model, "service-ultra")
    qtbot.mouseClick(dialog.run_button, CLICK)
    qtbot.waitUntil(lambda: len(right(dialog, 0).answer.toPlainText()) > 50, timeout=10000)
    assert dialog.stop_button.isEnabled() and not dialog.run_button.isEnabled()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # Esc stops first; it does not close the window
    qtbot.waitUntil(lambda: dialog.job is not None and not dialog.job.running)
    simulated(console.session).delay = 0
    assert dialog.isVisible()
    assert right(dialog, 0).status.text().startswith("Stopped.") and right(dialog, 0).answer.toPlainText()
    assert right(dialog, 1).status.text() == "Not run: the comparison was stopped."
    assert dialog.run_button.isEnabled() and not dialog.stop_button.isEnabled()
    assert dialog.open_button.isEnabled()


def test_a_long_conversation_opens_with_its_first_rows_and_builds_the_rest_as_they_are_reached(
    qtbot: QtBot, console: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.playground.conversation_store import StoredTurn
    from app.ui.playground import compare

    # A third of the 12 first rows, so a conversation a third as long (each turn a request when run) is as
    # long for the dialog: rows built on opening, more on scrolling, the rest as the run reaches them.
    monkeypatch.setattr(compare, "FIRST_ROWS", 4)
    tab = console.playground
    conversation = tab.conversations.start("Long talk", "service-pro")
    assert conversation is not None
    for number in range(20):
        answer = StoredTurn(f"question {number}", f"answer {number}", "service-pro", "completed")
        tab.conversations.save_turn(conversation, number, answer)
    dialog = opened(tab.open_compare(conversation))
    qtbot.addWidget(dialog)
    assert len(dialog.views) == 4 and len(dialog.rows) == 20
    bar = child(dialog, QScrollArea, "compare_rows").verticalScrollBar()
    dialog.resize(dialog.width(), 360)  # a short window: the 4 rows are more than it shows
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())  # the person scrolls down: the next rows come
    qtbot.waitUntil(lambda: len(dialog.views) > 4)
    assert len(dialog.views) < 20  # some rows are left for the run to reach
    run_on(qtbot, dialog, "service-ultra", timeout=60000)  # the run reaches every row, built as it starts
    assert len(dialog.views) == 20
    assert right(dialog, 19).answer.toPlainText() and "20 of 20 turns answered" in dialog.progress.text()
