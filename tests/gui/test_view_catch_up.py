"""A sent turn's view is built while the server works on its request, and follows its turn in catch-ups:
at once when the request is written, a frame later when it cannot be written yet, and while it streams."""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from app.ui.playground.turn_view import TurnView
from tests.gui.test_playground import click_box, send, use_server, wait_done


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def views_of(tab: PlaygroundTab) -> list[TurnView]:
    return tab.findChildren(TurnView)


def test_a_sent_turns_view_is_built_once_its_request_is_written(qtbot: QtBot, tab: PlaygroundTab) -> None:
    built_when_written: list[int] = []
    tab.service.request_sent.connect(lambda _index: built_when_written.append(len(views_of(tab))))
    send(qtbot, tab, "Hello there")
    assert views_of(tab) == []  # Send returned: the request goes out before the view is built
    wait_done(qtbot, tab)
    assert built_when_written and set(built_when_written) == {1}  # built once the request was written
    view = tab.views[0]
    assert tab.service.turns[0].status == "completed" and view.answer.toPlainText()
    assert "Waiting" not in view.status.text()


@contextmanager
def unanswered_connect() -> Iterator[str]:
    """A loopback listener whose accept queue is full: Linux drops the SYN of any new connection, so a
    connect waits (the next try comes after a second) and no request is written meanwhile."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    fillers = []
    for _ in range(2):  # the first fills the queue; the second is held as the console's will be
        filler = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        filler.setblocking(False)
        filler.connect_ex(listener.getsockname())
        fillers.append(filler)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


@pytest.mark.skipif(sys.platform != "linux", reason="a full accept queue drops SYNs on Linux")
def test_a_view_waits_at_most_a_frame_for_a_request_that_cannot_be_written(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    with unanswered_connect() as url:
        use_server(qtbot, console, url)
        send(qtbot, tab, "Anyone there?")
        sent = time.monotonic()
        qtbot.waitUntil(lambda: len(views_of(tab)) == 1, timeout=2000)
        assert time.monotonic() - sent < 0.5  # the connect's next try is a second away
        assert tab.service.turns[0].status in ("pending", "streaming")
        view = tab.views[0]
        assert view.status.text() == "Waiting for the first token…" and view.isVisible()
        qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
        wait_done(qtbot, tab)
    assert tab.service.turns[0].status == "stopped" and view.status.text().startswith("Stopped")


@pytest.mark.skipif(sys.platform != "linux", reason="a full accept queue drops SYNs on Linux")
def test_a_view_is_visible_as_soon_as_it_is_built(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    """What a loaded machine does to the test above, on any machine: the catch-up that builds the view runs,
    and nothing else of the event loop runs before the view is looked at."""
    with unanswered_connect() as url:
        use_server(qtbot, console, url)
        send(qtbot, tab, "Anyone there?")
        assert views_of(tab) == []
        tab.view_sync.catch_up.catch_up()  # what the frame timer runs
        assert views_of(tab)[0].isVisible()
        qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
        wait_done(qtbot, tab)


def test_what_changes_while_a_turn_streams_is_shown_before_its_end(qtbot: QtBot, tab: PlaygroundTab) -> None:
    click_box(qtbot, tab.web_search)
    send(qtbot, tab, "Search the web for CIDR notation, then write 3000 words about it")
    qtbot.waitUntil(lambda: bool(views_of(tab)) and views_of(tab)[0].search_label.isVisible(), timeout=5000)
    turn = tab.service.turns[0]
    assert turn.status == "streaming"  # the search line came in a catch-up, not with the end
    assert views_of(tab)[0].search_label.text().startswith("Searched:")
    qtbot.mouseClick(tab.stop_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab)
