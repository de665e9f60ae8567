"""A delegate that draws a large table's one-line text cells with a few QPainter calls, for tables repainted on
every keystroke (the Security tab's 100,000 entries, filtered as a person types).

Qt's own delegate lays each cell out through the style on every paint: it asks the model for about eight
roles (each a call into Python), measures the cell, and shapes and elides the text through QTextLayout. Here
each cell's text, elided to its column's width, is shaped once into a QStaticText and kept, so a repaint of
rows already seen only blits glyphs: a repaint of the 1000x700 entries table under the window's style sheet
(the console had one then) went from ~27 ms to ~12 ms (tests/perf/bench_allowlist_table), of which ~5 ms is
Qt calling into Python once per cell.

What Qt's drawing gave is kept: the palette's colours (selected rows in the highlight colours, any colour
group, a dark desktop), "…" where a text does not fit (the full text is then the cell's tooltip unless the
model has one), and the focus ring: the row the keyboard acts on is outlined in the focus colour while the
table has the focus (app/ui/focus_ring.py, which outlines a focused list's current row, leaves it to this).
The model still answers `data()` for every role, which the accessibility interface, copying and the tooltip
read.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from itertools import compress, islice

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QRect, Qt
from PySide6.QtGui import (
    QBrush,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QPainter,
    QPalette,
    QPen,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QToolTip,
)

from app.ui.colours import Ink, qcolor

CellText = Callable[[int, int], str]  # (row, column) -> the cell's text, as the model's DisplayRole
ModelIndex = QModelIndex | QPersistentModelIndex

# About 35 screens of cells; beyond that the oldest half is shaped again when shown.
_SHAPED_TEXTS_KEPT = 8_000
_REPAINTING_EVENTS = frozenset(
    {QEvent.Type.FocusIn, QEvent.Type.FocusOut, QEvent.Type.WindowActivate, QEvent.Type.WindowDeactivate}
)
_RESHAPING_EVENTS = frozenset({QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.PaletteChange})


class TextCells(QStyledItemDelegate):
    """Paints `view`'s cells from `text(row, column)`; `right_aligned`: the columns of figures."""

    outlines_focus_row = True  # its own ring, the whole row's (app/ui/focus_ring.py leaves the row to it)

    def __init__(self, view: QTableView, text: CellText, right_aligned: Collection[int] = ()) -> None:
        super().__init__(view)
        self._view = view
        self._text = text
        self._right = frozenset(right_aligned)
        # (text, room in pixels) -> (the text shaped, its width, whether it is elided)
        self._shaped: dict[tuple[str, int], tuple[QStaticText, int, bool]] = {}
        self._font = QFont()
        self._metrics = QFontMetrics(self._font)
        self._line_height = 0
        self._margin = 0
        self._focus_pen = qcolor(Ink.FOCUS)
        self._text_pen = self._highlighted_text = QPen()
        self._highlight = QBrush()
        self._focus_row = -1
        self._selected_rows: set[int] = set()
        self._reshape()
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)  # what `_start_pass` reads
        view.installEventFilter(self)
        view.viewport().installEventFilter(self)
        view.setItemDelegate(self)
        view.selectionModel().currentRowChanged.connect(self._current_row_changed)

    # -- painting ---------------------------------------------------------------------------------

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: ModelIndex) -> None:
        # Everything the same for every cell of this paint was read once, by `_start_pass`.
        row, column = index.row(), index.column()
        rect: QRect = option.rect
        if row in self._selected_rows:
            painter.fillRect(rect, self._highlight)
            painter.setPen(self._highlighted_text)
        else:
            painter.setPen(self._text_pen)
        margin = self._margin
        shaped, width, _elided = self._shape(self._text(row, column), rect.width() - 2 * margin)
        x = rect.right() - margin - width + 1 if column in self._right else rect.x() + margin
        painter.drawStaticText(x, rect.y() + (rect.height() - self._line_height) // 2, shaped)
        if row == self._focus_row:
            self._draw_focus_ring(painter, rect, column)

    def _start_pass(self) -> None:
        """What every cell of a paint shares: the colours of the view's state, and the row with the focus."""
        view = self._view
        palette = view.palette()
        if not view.isEnabled():
            group = QPalette.ColorGroup.Disabled
        elif view.isActiveWindow():
            group = QPalette.ColorGroup.Active
        else:
            group = QPalette.ColorGroup.Inactive
        self._text_pen = QPen(palette.color(group, QPalette.ColorRole.Text))
        self._highlight = palette.brush(group, QPalette.ColorRole.Highlight)
        self._highlighted_text = QPen(palette.color(group, QPalette.ColorRole.HighlightedText))
        self._focus_row = view.currentIndex().row() if view.hasFocus() else -1
        # The selected rows among those on screen: a few dozen questions here, not one per cell (the rows
        # are selected whole: SelectRows).
        first = view.rowAt(0)
        last = view.rowAt(view.viewport().height())
        last = view.model().rowCount() - 1 if last < 0 else last
        chosen = view.selectionModel().isRowSelected
        self._selected_rows = (
            set() if first < 0 else set(compress(range(first, last + 1), map(chosen, range(first, last + 1))))
        )

    def _shape(self, text: str, room: int) -> tuple[QStaticText, int, bool]:
        """The text laid out once for its column's room, elided with "…" when it does not fit."""
        key = (text, room)
        found = self._shaped.get(key)
        if found is not None:
            return found
        shaped = self._shaped_text(text)
        width = round(shaped.size().width())
        elided = width > room
        if elided:
            shaped = self._shaped_text(self._metrics.elidedText(text, Qt.TextElideMode.ElideRight, room))
            width = round(shaped.size().width())
        if len(self._shaped) >= _SHAPED_TEXTS_KEPT:  # bounded: the oldest half goes (a dict keeps its order)
            for old in list(islice(self._shaped, _SHAPED_TEXTS_KEPT // 2)):
                del self._shaped[old]
        self._shaped[key] = found = (shaped, width, elided)
        return found

    def _shaped_text(self, text: str) -> QStaticText:
        shaped = QStaticText(text)
        shaped.setTextFormat(Qt.TextFormat.PlainText)  # a cell is never markup
        shaped.prepare(QTransform(), self._font)  # laid out now, in the view's font: size() is its width
        return shaped

    def _draw_focus_ring(self, painter: QPainter, rect: QRect, column: int) -> None:
        """One outline around the whole row: its top and bottom edges in every cell, the sides at its ends."""
        painter.save()
        painter.setPen(self._focus_pen)
        left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
        painter.drawLine(left, top, right, top)
        painter.drawLine(left, bottom, right, bottom)
        header = self._view.horizontalHeader()
        if column == header.logicalIndex(0):
            painter.drawLine(left, top, left, bottom)
        if column == header.logicalIndex(header.count() - 1):
            painter.drawLine(right, top, right, bottom)
        painter.restore()

    # -- tooltips and changes -----------------------------------------------------------------------

    def helpEvent(
        self, event: QHelpEvent, view: QAbstractItemView, option: QStyleOptionViewItem, index: ModelIndex
    ) -> bool:
        """The model's tooltip; else an elided cell's whole text."""
        if event.type() == QEvent.Type.ToolTip and index.isValid():
            if index.data(Qt.ItemDataRole.ToolTipRole) is None:
                text = self._text(index.row(), index.column())
                if self._shape(text, option.rect.width() - 2 * self._margin)[2]:
                    QToolTip.showText(event.globalPos(), text, view)
                    return True
        return super().helpEvent(event, view, option, index)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Paint:
            if watched is self._view.viewport():
                self._start_pass()
            return False
        if kind in _RESHAPING_EVENTS:
            self._reshape()
        if kind in _REPAINTING_EVENTS or kind in _RESHAPING_EVENTS:
            self._view.viewport().update()  # the focus ring is the whole row's, Qt updates one cell
        return False

    def _current_row_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        viewport = self._view.viewport()
        for index in (previous, current):
            if index.isValid():
                row = index.row()
                viewport.update(
                    0, self._view.rowViewportPosition(row), viewport.width(), self._view.rowHeight(row)
                )

    def _reshape(self) -> None:
        """The font, the margins or the colours changed: every text is shaped again when shown."""
        view = self._view
        self._shaped.clear()
        self._font = QFont(view.font())
        self._metrics = QFontMetrics(self._font)
        self._line_height = self._metrics.height()
        self._margin = view.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
        self._focus_pen = qcolor(Ink.FOCUS)
