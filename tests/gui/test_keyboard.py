"""The keyboard: Tab leaves the message box and the Security table, F2 renames wherever the focus is in the
Playground, and every control has a name a screen reader reads (through Qt's accessibility interface)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAccessible, QColor
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from app.ui.colours import Ink, qcolor
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


# The Tab chain of each tab, in reading order: these controls come in this order (others between them).
PLAYGROUND_ORDER = (
    "conversation_search",
    "new",
    "conversation_list",
    "model",
    "web_search",
    "chain",
    "new_conversation",
    "get_code",
    "conversation",
    "instructions",
    "params_toggle",
    "structured",
    "functions",
    "attach",
    "attach_url",
    "message_edit",
    "send",
)
SECURITY_ORDER = (
    "scope",
    "switch",
    "refresh",
    "rotate",
    "list_tools",
    "credentials",
    "add_mine",
    "echo_settings",
    "cidr",
    "description",
    "expires",
    "check_ip",
    "filter",
    "entry_view",
    "entries",
    "remove",
)


def tab_stops(window: QWidget, page: QWidget) -> list[QWidget]:
    """What Tab should reach on `page` and in the toolbar: every shown, enabled control that takes Tab."""
    return [
        widget
        for widget in window.findChildren(QWidget)
        if widget.isVisibleTo(window)
        and widget.isEnabled()
        and widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        and not widget.isWindow()
        and widget.focusProxy() is None
        and (page.isAncestorOf(widget) or widget.parentWidget() is getattr(window, "connection_bar", None))
    ]


def walk_tab_chain(qtbot: QtBot, start: QWidget, key: Qt.Key = Qt.Key.Key_Tab) -> list[QWidget]:
    """Press Tab from `start` until the focus comes back to it (or 200 presses)."""
    start.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(start.hasFocus)
    chain = [start]
    for _ in range(200):
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, key)
        now = QApplication.focusWidget()
        assert now is not None and now is not focused, f"Tab stays in {type(focused).__name__}"
        if now is start:
            return chain
        chain.append(now)
    raise AssertionError("the Tab chain never comes back: " + ", ".join(w.objectName() for w in chain[-5:]))


def names(chain: list[QWidget]) -> list[str]:
    return [widget.objectName() for widget in chain]


def test_tab_walks_every_control_of_each_tab_in_reading_order(console: MainWindow, qtbot: QtBot) -> None:
    console.resize(1100, 800)
    sidebar = console.playground.sidebar
    sidebar.search.setObjectName("conversation_search")
    sidebar.new_button.setObjectName("new")
    for page, order in ((console.playground, PLAYGROUND_ORDER), (console.security, SECURITY_ORDER)):
        console.tabs.setCurrentWidget(page)
        qtbot.waitUntil(page.isVisible)
        qtbot.wait(100)
        chain = walk_tab_chain(qtbot, console.tabs.tabBar())
        # Every control is reached, once, and nothing else (no frame or scroll area without a name).
        expected = tab_stops(console, page)
        missing = [f"{type(w).__name__} {w.objectName()}" for w in expected if w not in chain]
        assert missing == []
        assert len(chain) == len(set(chain))
        # In reading order: the named controls come in this order.
        reached = names(chain)
        assert [name for name in reached if name in order] == list(order), reached
        # Each has a name a screen reader says, read through Qt's accessibility interface.
        for widget in chain:
            face = QAccessible.queryAccessibleInterface(widget)
            assert face.text(QAccessible.Text.Name).strip(), widget.objectName()
        # Shift+Tab walks the same chain backwards.
        backwards = walk_tab_chain(qtbot, console.tabs.tabBar(), Qt.Key.Key_Backtab)
        assert backwards[1:] == chain[1:][::-1]


def test_focus_is_visible_on_every_kind_of_control(console: MainWindow, qtbot: QtBot) -> None:
    """The focused control shows a ring in the palette's focus colour (Qt's own is a faint tint or none)."""
    console.resize(1100, 800)
    focus = qcolor(Ink.FOCUS)
    tab = console.playground
    send(qtbot, tab, "A conversation in the list")
    wait_done(qtbot, tab)
    listing = tab.sidebar.list
    qtbot.waitUntil(lambda: listing.model().rowCount() == 1)
    for widget in (tab.send_button, tab.web_search, tab.message, listing, tab.model, tab.params_toggle):
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(widget.hasFocus)
        image = widget.grab().toImage()
        edge = [image.pixelColor(x, image.height() // 2) for x in range(3)]
        edge += [image.pixelColor(image.width() // 2, y) for y in range(3)]
        assert any(colour_near(pixel, focus) for pixel in edge), type(widget).__name__


def colour_near(pixel: QColor, wanted: QColor) -> bool:
    pairs = ((pixel.red(), wanted.red()), (pixel.green(), wanted.green()), (pixel.blue(), wanted.blue()))
    return all(abs(a - b) <= 40 for a, b in pairs)


@pytest.mark.qt_log_ignore(
    "^This plugin does not support (raise|grabbing the keyboard)"
)  # the menu, offscreen
def test_the_scope_bars_menus_open_and_choose_from_the_keyboard(
    console: MainWindow, qtbot: QtBot, tab: SecurityTab
) -> None:
    """The List and Credentials menus hold the windows README names; Space opens one on its button, and an
    item's underlined letter opens its window."""
    listing = child(tab.scope_bar, QPushButton, "list_tools").menu()
    assert isinstance(listing, QMenu)
    assert [a.text().replace("&", "") for a in listing.actions()] == [
        "Import…",
        "Export…",
        "Simplify…",
        "History…",
        "Refused requests…",
    ]
    button = child(tab.scope_bar, QPushButton, "credentials")
    menu = button.menu()
    assert isinstance(menu, QMenu)
    assert [a.text() for a in menu.actions()] == ["&Keys…", "&Certificates…"]
    seen: list[bool] = []

    def pick() -> None:  # the menu runs its own loop while it is open
        seen.append(menu.isVisible())
        qtbot.keyClick(menu, Qt.Key.Key_C)

    QTimer.singleShot(200, pick)
    button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(button.hasFocus)
    qtbot.keyClick(button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: "certificates" in tab.dialogs and tab.dialogs["certificates"].isVisible())
    assert seen == [True]
    tab.dialogs["certificates"].close()
