"""Small traps of a new admin's first hour: a Play IP that is no address, a stale "Your IP", a description cut
to 200 characters with nothing said, an About box with no version."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app import __version__
from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import profile_of, shown


def type_play_ip(console: MainWindow, qtbot: QtBot, text: str) -> None:
    box = console.simulated_ip
    box.clear()
    qtbot.keyClicks(box, text)
    qtbot.keyClick(box, Qt.Key.Key_Return)


def test_a_play_ip_that_is_no_address_is_refused_and_changes_nothing(
    console: MainWindow, qtbot: QtBot
) -> None:
    type_play_ip(console, qtbot, "999.1.1.1")
    assert profile_of(console.session).simulated_ip == ""
    assert "not an IPv4 or IPv6 address" in console.statusBar().currentMessage()


def test_a_play_ip_leaves_your_ip_where_the_console_is(tab: SecurityTab, qtbot: QtBot) -> None:
    """Issue 38: Play IP is the Playground's; the Security tab's own calls, and "Your IP", stay put."""
    console = tab.window()
    assert isinstance(console, MainWindow)
    type_play_ip(console, qtbot, "203.0.113.9")
    assert profile_of(console.session).simulated_ip == "203.0.113.9"
    with qtbot.waitSignal(tab.service.loaded):
        tab.service.refresh()
    assert shown(tab).source_ip == "198.51.100.7" and "203.0.113.9" not in tab.your_ip.my_ip.text()


def test_the_description_limit_is_counted_as_you_type(tab: SecurityTab, qtbot: QtBot) -> None:
    form = tab.add_form
    qtbot.keyClicks(form.description, "x" * 210)
    assert len(form.description.text()) == 200
    assert (
        form.description_count.text() == "200/200" and "limit is reached" in form.description_count.toolTip()
    )
    form.description.clear()
    assert form.description_count.text() == "0/200"


def test_about_names_the_version(console: MainWindow, qtbot: QtBot) -> None:
    from PySide6.QtCore import QTimer

    def read_and_close() -> None:
        box = next(w for w in console.findChildren(QMessageBox) if w.isVisible())
        texts.append(box.text())
        box.accept()

    texts: list[str] = []
    QTimer.singleShot(0, read_and_close)
    console._about()
    assert f"Service Console {__version__}" in texts[0]


def test_the_list_loads_in_ascending_address_order(tab: SecurityTab, qtbot: QtBot) -> None:
    from tests.gui.test_security import add

    for cidr in ("203.0.113.0/24", "192.0.2.0/24", "198.51.100.0/24"):
        add(qtbot, tab, cidr, "")
    qtbot.waitUntil(lambda: tab.model.rowCount() == 3)
    shown = [tab.model.index(row, 0).data() for row in range(tab.model.rowCount())]
    assert shown == ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"]
