"""A damaged store at start: the embedded sandbox's SQLite file and the conversations file hold random bytes.
Both are found at start, moved aside with a timestamp, explained in words, and the Playground works."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.bootstrap import Paths, make_session
from app.ui.main_window import MainWindow
from tests.gui.test_playground import send, wait_done


@pytest.fixture
def damaged_home(tmp_path: Path) -> Path:
    for path in (
        tmp_path / "data" / "sandbox" / "sandbox.sqlite3",
        tmp_path / "data" / "conversations.sqlite3",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(20_000))
    return tmp_path


@pytest.fixture
def window(qloop: asyncio.AbstractEventLoop, qtbot: QtBot, damaged_home: Path) -> Iterator[MainWindow]:
    session = make_session(Paths.under(damaged_home), interactive=False)
    shown = MainWindow(session)
    qtbot.addWidget(shown)
    shown.show()
    shown.ensure_tabs()
    session.tasks.start("startup", session.activate())
    yield shown
    shutdown = asyncio.ensure_future(session.shutdown())
    qtbot.waitUntil(shutdown.done, timeout=10000)
    shutdown.result()


def test_a_damaged_store_is_set_aside_explained_and_the_playground_works(
    window: MainWindow, qtbot: QtBot, damaged_home: Path
) -> None:
    qtbot.waitUntil(lambda: window.session.state == "ok", timeout=10000)
    data = damaged_home / "data"
    for folder, name in ((data / "sandbox", "sandbox.sqlite3"), (data, "conversations.sqlite3")):
        aside = [path.name for path in folder.iterdir() if path.name.startswith(f"{name}.damaged-")]
        assert len(aside) == 1, f"{name}: {sorted(p.name for p in folder.iterdir())}"
        assert (folder / aside[0]).stat().st_size == 20_000  # kept, not deleted
    log = (damaged_home / "logs" / "console.log").read_text()
    for what in ("The local sandbox's store", "The saved conversations file"):
        assert f"{what} (" in log and "was damaged (file is not a database)" in log
    assert "moved aside to" in log and ".recover" in log
    assert window.notice.isVisible() and "was damaged" in window.notice.label.text()  # said on screen
    window.tabs.setCurrentWidget(window.playground)
    send(qtbot, window.playground, "Hello after the damage")
    wait_done(qtbot, window.playground)
    assert window.playground.service.turns[-1].status == "completed"
    qtbot.waitUntil(lambda: bool(window.playground.conversations.summaries()), timeout=5000)
