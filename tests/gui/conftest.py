"""GUI fixtures: a qasync loop over pytest-qt's QApplication, an in-memory keychain, a console session."""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import keyring
import pytest
import qasync
from keyring.backend import KeyringBackend
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.asyncloop import install_asyncgen_hooks
from tests.gui.reach import place_console, shown

if TYPE_CHECKING:  # imported by the fixture itself at run time, as the app does after its first frame
    from app.ui.main_window import MainWindow
    from app.ui.security.tab import SecurityTab


class MemoryKeyring(KeyringBackend):
    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's KeyringBackend.__init__ is unannotated
        self.secrets: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.secrets.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.secrets[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.secrets.pop((service, username), None)


@pytest.fixture(autouse=True)
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop marked already running; qtbot's waits drive its tasks. Never loop.stop(): it calls
    app.exit(), after which every Qt wait returns at once and later tests time out (docs/stack.md)."""
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    previous = install_asyncgen_hooks(loop)
    yield loop
    # Cancelled tasks and closed transports finish on the loop's next turns (a transport closes its socket
    # in a call_soon callback): drive the loop until they have, or their sockets leak (ResourceWarning).
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    deadline = time.monotonic() + 5
    while not all(task.done() for task in pending) and time.monotonic() < deadline:
        qapp.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
    for _ in range(3):  # the callbacks those last turns scheduled (qasync runs call_soon as 0 ms Qt timers)
        qapp.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 10)
    # A connect still in flight when a test swaps or closes the session's client (several tests point the
    # console at a loopback peer mid-test) leaves a socket that only the collector closes, in whichever later
    # test it runs: collect it here, at the end of the GUI test that left it, without failing that test.
    # Only here: the sandbox and API tests keep every ResourceWarning an error.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
    # What survived is kept out of later collections (as tests/conftest.py does after collection): a worker
    # that ran the schemathesis or hypothesis tests holds ~10^5 objects more, and scanning them again made
    # each later GUI test's collection ~0.1 s. The next test's collection then scans only what it made.
    gc.freeze()
    executor = getattr(loop, "_QEventLoop__default_executor", None)  # getaddrinfo's threads
    if executor is not None:
        executor.shutdown(wait=True)
    sys.set_asyncgen_hooks(*previous)
    asyncio.events._set_running_loop(
        None
    )  # qasync marked it running for the whole thread; later tests use their own loops
    asyncio.set_event_loop(None)


@pytest.fixture
def tab(console: MainWindow, qtbot: QtBot) -> SecurityTab:
    """The Security tab, the console placed at 198.51.100.7 (its requests, the Admin API's too, come from
    there through the embedded sandbox's trusted loopback proxy)."""
    # Placed before the tab is made, so that the read the tab starts as it is made comes from there: the one
    # read the fixture waits for, none read from elsewhere and thrown away.
    place_console(console.session, "198.51.100.7")
    security = console.security
    console.tabs.setCurrentWidget(security)
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).source_ip == "198.51.100.7")
    return security


@pytest.fixture
def console(qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path) -> Iterator[MainWindow]:
    """The main window on a fresh embedded sandbox, connected."""
    from app.bootstrap import Paths, make_session
    from app.ui.main_window import MainWindow

    session = make_session(Paths.under(tmp_path), interactive=False)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.ensure_tabs()  # as the app does right after the first frame
    session.tasks.start("startup", session.activate())
    qtbot.waitUntil(lambda: session.state == "ok", timeout=10000)
    yield window
    # As the app quits: cancel the session's tasks, close its HTTP client (no unclosed sockets), stop the sandbox.
    shutdown = asyncio.ensure_future(session.shutdown())
    qtbot.waitUntil(shutdown.done, timeout=10000)
    shutdown.result()
