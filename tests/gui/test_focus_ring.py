"""The focus ring follows the keyboard: around the focused control in any window, around a focused list's
current row as it moves, and gone when the focus goes; and it is drawn without a style sheet (which made Qt
style every widget of the window through QStyleSheetStyle)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from app.ui.colours import Ink, qcolor
from app.ui.focus_ring import FocusRing
from app.ui.main_window import MainWindow
from tests.gui.test_keyboard import colour_near
from tests.gui.test_playground import send, wait_done


def ring_pixels(image: QImage, y: int) -> list[QColor]:
    """The row `y` of a list's image, across the middle of the row (the ring's top or bottom edge)."""
    return [image.pixelColor(x, y) for x in range(image.width() // 3, 2 * image.width() // 3, 7)]


def test_a_focused_list_outlines_its_current_row_and_follows_it(console: MainWindow, qtbot: QtBot) -> None:
    tab = console.playground
    for text in ("First conversation", "Second conversation", "Third conversation"):
        tab.keeper.new()
        send(qtbot, tab, text)
        wait_done(qtbot, tab)
    listing = tab.sidebar.list
    qtbot.waitUntil(lambda: listing.model().rowCount() == 3)
    focus = qcolor(Ink.FOCUS)
    listing.setFocus(Qt.FocusReason.TabFocusReason)
    listing.setCurrentIndex(listing.model().index(1, 0))  # not the first: its top is at the ring's
    qtbot.waitUntil(listing.hasFocus)

    def outlined(row: int) -> bool:
        rect = listing.visualRect(listing.model().index(row, 0))
        top = rect.translated(listing.viewport().pos()).top()
        image = listing.grab().toImage()
        return all(colour_near(pixel, focus) for pixel in ring_pixels(image, top))

    qtbot.waitUntil(lambda: outlined(1))
    assert not outlined(2)
    qtbot.keyClick(listing, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: outlined(2))
    assert not outlined(1)


def test_the_ring_follows_the_focus_into_a_dialog_and_leaves_with_it(
    console: MainWindow, qtbot: QtBot
) -> None:
    focus = qcolor(Ink.FOCUS)
    dialog = console.open_settings()
    field = dialog.findChild(QLineEdit)
    assert field is not None
    field.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(field.hasFocus)
    image = field.grab().toImage()
    assert colour_near(image.pixelColor(QPoint(1, image.height() // 2)), focus)
    ring = field.findChild(FocusRing)
    assert ring is not None and ring.isVisible() and ring.geometry() == field.rect()
    dialog.close()
    console.activateWindow()
    console.playground.message.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(console.playground.message.hasFocus)
    assert field.findChild(FocusRing) is None  # the one ring moved on to the message box
    assert console.playground.message.findChild(FocusRing) is not None


def test_no_style_sheet_styles_the_window(console: MainWindow) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    assert not app.styleSheet() and not console.styleSheet()
