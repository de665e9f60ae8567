"""The entries table draws its cells itself (TextCells: the table repaints on every filter keystroke) and
still looks as Qt's own drawing did: the palette's colours, light or dark, selected rows in the highlight
colour, the row the keyboard acts on outlined in the focus colour, and "…" with the whole text as tooltip
where a cell is too narrow."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QPalette
from PySide6.QtWidgets import QTableView, QToolTip
from pytestqt.qtbot import QtBot

from app.models.entries import ADDRESS, COVERS, DESCRIPTION
from app.ui.colours import Ink, qcolor
from app.ui.security.tab import SecurityTab
from tests.gui.reach import hover_for_tooltip
from tests.gui.test_colours import dark_palette
from tests.gui.test_keyboard import colour_near
from tests.gui.test_security import add

__all__ = ["dark_palette"]  # a fixture, used by name

LONG = "the branch office in the east wing, second floor, behind the reception desk"


def table_of(qtbot: QtBot, tab: SecurityTab) -> QTableView:
    add(qtbot, tab, "198.51.100.0/24", "office")
    add(qtbot, tab, "203.0.113.0/24", LONG)
    table = tab.entries.table
    qtbot.waitUntil(lambda: tab.model.rowCount() == 2 and tab.model.indexed)
    tab.window().resize(1200, 900)
    qtbot.waitUntil(lambda: table.visualRect(table.model().index(1, COVERS)).height() > 10)
    return table


def cell_image(table: QTableView, row: int, column: int) -> QImage:
    rect = table.visualRect(table.model().index(row, column))
    return table.viewport().grab(rect).toImage()


def pixels(image: QImage) -> list[QColor]:
    return [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]


def test_a_selected_row_is_drawn_in_the_highlight_colours(qtbot: QtBot, tab: SecurityTab) -> None:
    table = table_of(qtbot, tab)
    table.selectRow(1)
    qtbot.wait(20)
    highlight = table.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight)
    for column in (ADDRESS, COVERS):  # with text, and without
        image = cell_image(table, 1, column)
        middle = image.pixelColor(image.width() - 4, image.height() // 2)
        assert colour_near(middle, highlight) or colour_near(
            middle, table.palette().color(QPalette.ColorGroup.Inactive, QPalette.ColorRole.Highlight)
        ), middle.name()
    unselected = cell_image(table, 0, COVERS)
    assert not any(colour_near(pixel, highlight) for pixel in pixels(unselected))


def test_the_row_the_keyboard_acts_on_is_outlined_while_the_table_has_the_focus(
    qtbot: QtBot, tab: SecurityTab
) -> None:
    table = table_of(qtbot, tab)
    focus = qcolor(Ink.FOCUS)
    table.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(table.hasFocus)
    table.setCurrentIndex(table.model().index(0, ADDRESS))
    qtbot.wait(20)
    # The whole row, not only the current cell: its top edge in a cell away from the current one.
    image = cell_image(table, 0, DESCRIPTION)
    assert colour_near(image.pixelColor(image.width() // 2, 0), focus)
    other = cell_image(table, 1, DESCRIPTION)
    assert not colour_near(other.pixelColor(other.width() // 2, 0), focus)
    # The arrows move it; leaving the table takes it away.
    qtbot.keyClick(table, Qt.Key.Key_Down)
    qtbot.wait(20)
    assert table.currentIndex().row() == 1
    moved = cell_image(table, 1, DESCRIPTION)
    assert colour_near(moved.pixelColor(moved.width() // 2, 0), focus)
    tab.entries.filter.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: not table.hasFocus())
    qtbot.wait(20)
    left = cell_image(table, 1, DESCRIPTION)
    assert not colour_near(left.pixelColor(left.width() // 2, 0), focus)


# The offscreen platform cannot raise the tooltip's window, and says so; the tooltip is shown all the same.
@pytest.mark.qt_log_ignore("^This plugin does not support raise")
def test_a_cell_too_narrow_is_elided_and_its_tooltip_is_the_whole_text(
    qtbot: QtBot, tab: SecurityTab
) -> None:
    table = table_of(qtbot, tab)
    tab.window().resize(700, 600)  # the description column takes what is left: too narrow for LONG
    qtbot.wait(50)
    index = table.model().index(1, DESCRIPTION)
    assert table.model().data(index) == LONG  # what a screen reader and a copy read: never elided
    rect = table.visualRect(index)
    assert table.fontMetrics().horizontalAdvance(LONG) > rect.width()
    hover_for_tooltip(table.viewport(), rect.center())
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text() == LONG
    # A cell that fits has no tooltip of its own; the address keeps the model's (the entry's id).
    hover_for_tooltip(table.viewport(), table.visualRect(table.model().index(0, DESCRIPTION)).center())
    qtbot.wait(50)
    assert not QToolTip.isVisible() or QToolTip.text() != "office"
    hover_for_tooltip(table.viewport(), table.visualRect(table.model().index(0, ADDRESS)).center())
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text().startswith("ipal_")
    QToolTip.hideText()


def test_cells_are_written_in_the_palette_s_text_colour_on_a_dark_desktop(
    dark_palette: QPalette, qtbot: QtBot, tab: SecurityTab
) -> None:
    table = table_of(qtbot, tab)
    text = table.palette().color(QPalette.ColorRole.Text)
    assert text.lightness() > 200  # the dark palette's light text
    image = cell_image(table, 0, ADDRESS)
    assert any(colour_near(pixel, text) for pixel in pixels(image))
