"""A stopped turn and the chain: the next turn says what it sends instead of chaining on nothing."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.reach import body_of, simulated
from tests.gui.test_playground import send, wait_done


def note_of(tab: PlaygroundTab, index: int) -> str:
    note = tab.views[index].findChild(QLabel, "chain_note")
    assert note is not None and note.isVisibleTo(tab), f"turn {index} has no chain note"
    return note.text()


def test_the_turn_after_a_stopped_answer_says_the_history_is_sent(qtbot: QtBot, console: MainWindow) -> None:
    tab = console.playground
    engine = simulated(console.session)
    assert tab.chain.isChecked()
    send(qtbot, tab, "Hello")
    wait_done(qtbot, tab)
    engine.delay = 0.003
    send(qtbot, tab, "Write 3000 words about the sea")
    qtbot.waitUntil(lambda: len(tab.service.turns[1].text) > 50, timeout=10000)
    qtbot.keyClick(tab, Qt.Key.Key_Escape)
    wait_done(qtbot, tab, 2)
    engine.delay = 0
    partial = tab.service.turns[1].text
    send(qtbot, tab, "Go on")
    wait_done(qtbot, tab, 3)
    third = tab.service.turns[2]
    assert third.status == "completed" and "previous_response_id" not in body_of(third)
    assert body_of(third)["input"][3] == {"role": "assistant", "content": partial}
    assert "stopped before it finished" in note_of(tab, 2) and "whole history" in note_of(tab, 2)
    assert "whole history sent" in tab.views[2].prompt_label.text()


def test_the_turn_after_a_message_stopped_before_its_answer_says_it_is_left_out(
    qtbot: QtBot, console: MainWindow
) -> None:
    tab = console.playground
    engine = simulated(console.session)
    send(qtbot, tab, "Hello")
    wait_done(qtbot, tab)
    first_id = tab.service.turns[0].response_id
    engine.delay = 0.5
    send(qtbot, tab, "Never mind")
    qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab, 2)
    engine.delay = 0
    assert tab.service.turns[1].status == "stopped" and not tab.service.turns[1].text
    send(qtbot, tab, "Where were we?")
    wait_done(qtbot, tab, 3)
    assert body_of(tab.service.turns[2])["previous_response_id"] == first_id
    assert "left out" in note_of(tab, 2) and "chains on the answer before it" in note_of(tab, 2)
