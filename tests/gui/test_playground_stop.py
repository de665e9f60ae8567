"""Stop on a very long answer: the console closes the stream at once and the sandbox stops writing."""

from __future__ import annotations

import logging
import time

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.reach import simulated
from tests.gui.test_playground import send, wait_done
from tests.sandbox.test_stream_disconnect import EngineWatch


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def test_stop_on_a_long_answer_stops_the_server_quickly_and_quietly(
    qtbot: QtBot,
    tab: PlaygroundTab,
    console: MainWindow,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine = simulated(console.session)
    watch = EngineWatch(engine)
    monkeypatch.setattr(engine, "run", watch.watched)
    caplog.set_level(logging.WARNING)
    send(qtbot, tab, "Write 50000 words about the sea")
    qtbot.waitUntil(lambda: bool(tab.service.turns) and len(tab.service.turns[0].text) > 200, timeout=10000)
    qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
    stopped = time.monotonic()
    qtbot.waitUntil(lambda: watch.closed_at is not None, timeout=10000)
    assert watch.closed_at is not None and watch.closed_at - stopped < 0.5
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == "stopped" and len(turn.text.split()) < 50000
    assert not [record for record in caplog.records if "socket.send()" in record.getMessage()]
    send(qtbot, tab, "Still there?")
    wait_done(qtbot, tab, 2)
    assert tab.service.turns[1].status == "completed"
