"""A turn behind a proxy that buffers the whole answer: while the first token is awaited the turn counts
the seconds and says the proxy may be holding the answer back; once it came all at once, the figures say so
instead of a pace."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.api import ConnectionSettings, ServiceClient
from app.core.playground import status
from app.ui.main_window import MainWindow
from tests.api.loopback_proxy import loopback_proxy
from tests.gui.reach import client_of, simulated


def test_the_wait_for_the_first_token_is_counted_and_the_proxy_named(
    console: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(status, "PROXY_NOTE_AFTER_S", 1)  # the note comes after 5 s in use
    session = console.session
    simulated(session).delay = 0.03  # ~60 words: the whole answer takes about 2 s, past the 1 s tick
    sandbox = client_of(session).transport.settings
    tab = console.playground
    with loopback_proxy() as proxy:
        old = client_of(session)
        session.client = ServiceClient(
            ConnectionSettings(
                sandbox.base_url,
                api_key=sandbox.api_key,
                proxy=proxy.url,
                forwarded_for=sandbox.forwarded_for,
            )
        )
        session.tasks.start("close-old", old.aclose())
        tab.message.setPlainText("Write 60 words about the sea")
        qtbot.keyClick(tab.message, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: bool(tab.views.built()), timeout=5000)
        view = tab.views[0]
        name = proxy.url.removeprefix("http://")
        qtbot.waitUntil(lambda: "may be holding the answer back" in view.status.text(), timeout=5000)
        waiting = view.status.text()
        assert waiting.startswith("Waiting for the first token… ") and f"The proxy {name}" in waiting
        qtbot.waitUntil(lambda: tab.service.turns[0].status == "completed", timeout=20000)
    figures = view.status.text()
    assert "arrived all at once: a proxy held the stream back" in figures and "tok/s" not in figures
