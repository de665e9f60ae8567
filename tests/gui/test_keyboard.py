"""The keyboard: Tab leaves the message box and the Security table, F2 renames wherever the focus is in the
Playground, and every control has a name a screen reader reads (through Qt's accessibility interface)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child
from tests.gui.test_playground import send, wait_done

CONTROLS = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractSpinBox,
    QAbstractItemView,
    QPlainTextEdit,
    QTextEdit,
)


def test_tab_leaves_the_message_box_for_send(console: MainWindow, qtbot: QtBot) -> None:
    tab = console.playground
    tab.message.setFocus()
    qtbot.keyClicks(tab.message, "hello")
    qtbot.keyClick(tab.message, Qt.Key.Key_Tab)
    assert tab.message.toPlainText() == "hello"  # no tab character typed
    assert QApplication.focusWidget() is tab.findChild(QAbstractButton, "send")


def test_tab_leaves_the_security_table(console: MainWindow, qtbot: QtBot, tab: SecurityTab) -> None:
    table = child(tab, QAbstractItemView, "entries")
    table.setFocus()
    qtbot.waitUntil(table.hasFocus)
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table


def test_f2_renames_the_selected_conversation_from_the_message_box(console: MainWindow, qtbot: QtBot) -> None:
    tab = console.playground
    send(qtbot, tab, "A conversation to rename")
    wait_done(qtbot, tab)
    listing = tab.sidebar.list
    qtbot.waitUntil(lambda: listing.model().rowCount() == 1)
    listing.setCurrentIndex(listing.model().index(0, 0))
    tab.message.setFocus()
    qtbot.keyClick(tab.message, Qt.Key.Key_F2)
    assert listing.state() == QAbstractItemView.State.EditingState


def test_every_control_has_an_accessible_name(console: MainWindow, qtbot: QtBot) -> None:
    unnamed = []
    for page in (console.playground, console.security):
        console.tabs.setCurrentWidget(page)
        qtbot.waitUntil(page.isVisible)
        for widget in console.findChildren(QWidget):
            if not isinstance(widget, CONTROLS) or not widget.isVisibleTo(console):
                continue
            if widget.focusPolicy() == Qt.FocusPolicy.NoFocus:
                continue
            face = QAccessible.queryAccessibleInterface(widget)
            if not face.text(QAccessible.Text.Name).strip():
                unnamed.append(f"{type(widget).__name__} {widget.objectName()}")
    assert unnamed == []
