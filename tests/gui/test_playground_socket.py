"""The Playground in WebSocket mode (File > Profiles: "Use WebSocket mode for responses"), against the embedded
sandbox: a conversation over one socket, the inspector's Frames page, the key in none of what the inspector
or Get code shows, and a socket that cannot be kept falling back to HTTP with a sentence in the status bar."""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.playground.dialogs import TextTabsDialog
from app.ui.playground.tab import PlaygroundTab
from tests.api.test_socket_mode import dropping_peer
from tests.gui.reach import child, client_of
from tests.gui.test_playground import send, wait_done


@pytest.fixture
def tab(console: MainWindow, qtbot: QtBot) -> PlaygroundTab:
    """The Playground of a console whose profile was switched to WebSocket mode in File > Profiles."""
    session = console.session
    dialog = console.open_settings()
    qtbot.mouseClick(dialog.findChild(QCheckBox, "websocket_mode"), Qt.MouseButton.LeftButton)
    before = session.client
    qtbot.mouseClick(dialog.findChild(QPushButton, "save"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: session.client is not None and session.client is not before, timeout=10000)
    dialog.close()
    console.activateWindow()  # the keys typed next go to the window, as after a person closes the dialog
    qtbot.waitUntil(lambda: QGuiApplication.focusWindow() is console.windowHandle())
    assert session.profile is not None and session.profile.websocket_mode
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def upgrades(tab: PlaygroundTab, index: int) -> int:
    log = tab.service.turns[index].socket
    assert log is not None, "the turn did not go over the socket"
    return sum(frame.text.startswith("GET ws://") for frame in log.frames)


def test_a_conversation_goes_over_one_socket_and_a_new_one_opens_its_own(
    qtbot: QtBot, tab: PlaygroundTab
) -> None:
    send(qtbot, tab, "first over the socket")
    wait_done(qtbot, tab)
    send(qtbot, tab, "second over the socket")
    wait_done(qtbot, tab, 2)
    turns = tab.service.turns
    assert [turn.status for turn in turns] == ["completed", "completed"]
    assert turns[1].chain_on_server and turns[1].request_body is not None
    assert turns[1].request_body["previous_response_id"] == turns[0].response_id
    assert (upgrades(tab, 0), upgrades(tab, 1)) == (1, 0)
    tab.service.new_conversation()
    send(qtbot, tab, "a new conversation")
    wait_done(qtbot, tab)
    assert upgrades(tab, 0) == 1


def test_the_inspector_shows_the_frames_and_never_the_key(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    key = client_of(console.session).transport.settings.api_key
    assert key
    send(qtbot, tab, "inspect the frames")
    wait_done(qtbot, tab)
    tab.inspect(0)
    inspector = child(tab, TextTabsDialog)
    qtbot.waitExposed(inspector)
    frames = inspector.page_text("Frames").splitlines()
    assert "⇅ GET ws://" in frames[0] and "101" in frames[1]
    sent = json.loads(frames[2].split("→ ", 1)[1])
    assert sent["type"] == "response.create" and sent["input"] == "inspect the frames"
    assert "← " in frames[3] and '"type":"response.completed"' in frames[-1]
    # The key is in the upgrade's header only: not in the inspector's pages, not in what its window draws
    # (every text of the screenshot's widgets), not on the clipboard after Copy, not in Get code.
    pages = inspector.tabs
    for index in range(pages.count()):
        pages.setCurrentIndex(index)
        shown = inspector.grab()
        assert not shown.isNull()
        texts = [widget.toPlainText() for widget in inspector.findChildren(QPlainTextEdit)]
        texts += [label.text() for label in inspector.findChildren(QLabel)]
        texts += [pages.tabText(i) for i in range(pages.count())] + [inspector.windowTitle()]
        assert all(key not in text for text in texts)
        inspector.copy_current()
        assert key not in QGuiApplication.clipboard().text()
    for name, text in tab.code_snippets().items():
        assert key not in text, name
    inspector.close()


def test_a_socket_that_drops_twice_falls_back_to_http_and_says_so(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    send(qtbot, tab, "over the socket")
    wait_done(qtbot, tab)
    channel = tab.service.socket.channel()
    assert channel is not None
    socket = channel.socket_for(client_of(console.session))
    with dropping_peer() as url:
        socket.url = url  # the socket's next opening meets a peer that drops every connection
        console.session.tasks.start("drop", socket.aclose())
        qtbot.waitUntil(lambda: not socket.open)
        send(qtbot, tab, "the socket is gone")
        wait_done(qtbot, tab, 2)
    turn = tab.service.turns[1]
    assert turn.status == "completed" and turn.text  # answered over HTTP: nothing lost
    assert "went over HTTP" in console.statusBar().currentMessage()
    send(qtbot, tab, "the rest goes over HTTP")
    wait_done(qtbot, tab, 3)
    assert tab.service.turns[2].socket is None and tab.service.turns[2].status == "completed"


def test_stop_closes_the_socket_at_once_and_the_next_turn_opens_another(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.gui.reach import simulated
    from tests.sandbox.test_stream_disconnect import EngineWatch

    engine = simulated(console.session)
    watch = EngineWatch(engine)
    monkeypatch.setattr(engine, "run", watch.watched)
    send(qtbot, tab, "Write 50000 words about the sea")
    qtbot.waitUntil(lambda: bool(tab.service.turns) and len(tab.service.turns[0].text) > 200, timeout=10000)
    qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
    stopped = time.monotonic()
    # The service stops a response only when its socket goes: the engine hears it as over HTTP.
    qtbot.waitUntil(lambda: watch.closed_at is not None, timeout=10000)
    assert watch.closed_at is not None and watch.closed_at - stopped < 0.5
    wait_done(qtbot, tab)
    assert tab.service.turns[0].status == "stopped" and time.monotonic() - stopped < 1
    send(qtbot, tab, "Still there?")
    wait_done(qtbot, tab, 2)
    assert tab.service.turns[1].status == "completed" and upgrades(tab, 1) == 1


def test_compare_sends_over_the_profiles_socket_as_the_playground_does(
    qtbot: QtBot, tab: PlaygroundTab
) -> None:
    from tests.gui.test_playground_compare import compare_window, rerun_of, run_on, send_all

    send_all(qtbot, tab, "My name is Ada", "What is my name?")
    qtbot.mouseClick(tab.sidebar.compare_button, Qt.MouseButton.LeftButton)
    dialog = compare_window(qtbot, tab)
    run_on(qtbot, dialog, "service-think")
    first, second = rerun_of(dialog, 0), rerun_of(dialog, 1)
    assert (first.status, second.status) == ("completed", "completed")
    logs = [log for log in (first.socket, second.socket) if log is not None]
    assert len(logs) == 2, "a re-run went over HTTP"
    # One socket carries the re-run, as one carries a conversation.
    assert [sum(frame.text.startswith("GET ws://") for frame in log.frames) for log in logs] == [1, 0]
    dialog.close()


def test_get_code_says_which_transport_each_snippet_uses(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    key = client_of(console.session).transport.settings.api_key
    assert key
    qtbot.keyClicks(tab.message, "Hello over the socket")
    snippets = tab.code_snippets()
    assert (
        "client.responses.connect()" in snippets["Python"] and "responses.create(" not in snippets["Python"]
    )
    assert '"type": "response.create"' in snippets["Python"]
    assert snippets["curl"].startswith("# Sent over HTTP") and "WebSocket mode" in snippets["curl"]
    assert snippets["Node.js"].startswith("// Sent over HTTP")
    for name, text in snippets.items():
        assert key not in text, name
