"""The console's side of test_focus_real_wm.py: run by it on a real X display, never collected on its own
(the name does not start with test_), since the suite's own Qt runs offscreen."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import client_of, embedded, profile_of

# Another program's window: focusing it makes the console's application inactive (a second window of the
# console itself would not).
OTHER_WINDOW = """
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel("another program")
label.setWindowTitle("another-program-window")
label.resize(300, 200)
label.show()
app.exec()
"""


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], check=True, capture_output=True, text=True, timeout=30).stdout


@pytest.fixture
def other_window() -> Iterator[str]:
    """The X window id of another program's window, shown."""
    process = subprocess.Popen([sys.executable, "-c", OTHER_WINDOW])
    try:
        found = xdotool("search", "--sync", "--onlyvisible", "--name", "another-program-window")
        yield found.split()[0]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_list_is_read_again_when_the_window_manager_gives_the_console_the_focus_again(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, other_window: str
) -> None:
    assert os.environ.get("QT_QPA_PLATFORM") == "xcb", "run by tests/gui/test_focus_real_wm.py"
    application = QApplication.instance()
    assert isinstance(application, QApplication)
    console.resize(1200, 800)
    tab.service.periodic.stop()  # only the focus may read the list again in this test
    mine = str(int(console.winId()))
    xdotool("windowactivate", "--sync", mine)
    qtbot.waitUntil(lambda: application.applicationState() == Qt.ApplicationState.ApplicationActive)
    assert tab.model.rowCount() == 0

    xdotool("windowactivate", "--sync", other_window)  # the admin turns to another program
    qtbot.waitUntil(lambda: application.applicationState() == Qt.ApplicationState.ApplicationInactive)
    session = console.session
    sandbox, org = embedded(session), profile_of(session).org_id

    def reads() -> int:  # the list reads that reached the sandbox (a read the activation began may be late)
        return sum(
            1 for method, path in sandbox.app.seen if method == "GET" and path.endswith("/ip_allowlist")
        )

    settled = reads()
    for _ in range(50):  # until no read has arrived for a second
        qtbot.wait(1000)
        if reads() == settled:
            break
        settled = reads()
    admin_key = client_of(session).transport.settings.admin_key
    with httpx.Client(base_url=sandbox.base_url, headers={"authorization": f"Bearer {admin_key}"}) as admin:
        added = admin.post(
            f"/organizations/{org}/ip_allowlist/entries",
            json={"cidr": "192.0.2.0/24", "description": "another admin"},
        )  # another admin, meanwhile, through the Admin API
        assert added.status_code == 201, added.text
    qtbot.wait(1000)
    assert reads() == settled and tab.model.rowCount() == 0  # nothing read it while in the background

    xdotool("windowactivate", "--sync", mine)  # and back to the console
    qtbot.waitUntil(lambda: tab.model.rowCount() == 1, timeout=10000)
    assert tab.model.entry(0).cidr == "192.0.2.0/24" and tab.model.entry(0).description == "another admin"
