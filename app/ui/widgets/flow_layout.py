"""A row of controls that wraps onto further lines when the window is narrower than the row.

Qt has no wrapping layout of its own (its documentation ships one only as an example, which this follows):
QHBoxLayout's minimum is the sum of its items, so a row of buttons made the whole window that wide, wider than
the screen at twice the scale. Here the minimum is the widest single control, and the height follows the width
(as the row's minimum height).
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QWidget, QWidgetItem


class FlowLayout(QLayout):
    """Items left to right, wrapping as a paragraph does; `stretch_after` pushes the items after it right."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def add_widgets(self, *widgets: QWidget) -> None:
        for widget in widgets:
            self.addChildWidget(widget)
            self.addItem(QWidgetItem(widget))

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def setGeometry(self, rect: QRect) -> None:
        """Place the items; the lines they take become the row's minimum height.

        Not Qt's height-for-width: a scroll area around the window asks its page for the height it prefers
        at a width, which a box layout answers with every item's preferred height (the tables' too), so
        the page scrolled where it fitted. A minimum height only grows by the lines a narrow row wraps into.
        """
        super().setGeometry(rect)
        height = self._place(rect, move=True)
        row = self.parentWidget()
        if row is not None and row.minimumHeight() != height:
            row.setMinimumHeight(height)

    def sizeHint(self) -> QSize:
        """One line: every item side by side."""
        shown = self._shown()
        width = sum(item.sizeHint().width() for item in shown) + self._spacing * max(0, len(shown) - 1)
        height = max((item.sizeHint().height() for item in shown), default=0)
        return QSize(width, height) + self._margin_size()

    def minimumSize(self) -> QSize:
        """The widest single item: anything wider wraps."""
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        return size + self._margin_size()

    def width_for_lines(self, lines: int) -> int:
        """The least width that holds the items in at most `lines` lines, as they wrap."""
        widths = [item.sizeHint().width() for item in self._shown()]
        if not widths:
            return self._margin_size().width()

        def lines_at(width: int) -> int:
            count, x = 1, 0
            for wide in widths:
                if x and x + self._spacing + wide > width:
                    count, x = count + 1, wide
                else:
                    x += (self._spacing if x else 0) + wide
            return count

        low, high = max(widths), sum(widths) + self._spacing * (len(widths) - 1)
        while low < high:
            middle = (low + high) // 2
            low, high = (low, middle) if lines_at(middle) <= lines else (middle + 1, high)
        return low + self._margin_size().width()

    def _margin_size(self) -> QSize:
        margins: QMargins = self.contentsMargins()
        return QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _shown(self) -> list[QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lay the items out in `rect` (or only measure) and return the height they take. Each item is placed
        once, centred on its line's height as QHBoxLayout does: placed at the line's top and then centred, a
        control shorter than its line would move twice at each pass, and Qt repaints each move."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line_height = area.x(), area.y(), 0
        lines: list[tuple[int, int, list[tuple[QLayoutItem, QSize, int]]]] = []  # top, height, items at x
        line: list[tuple[QLayoutItem, QSize, int]] = []
        for item in self._shown():
            hint = item.sizeHint()
            if x > area.x() and x + hint.width() > area.right() + 1:  # this item starts a new line
                lines.append((y, line_height, line))
                x, y, line_height, line = area.x(), y + line_height + self._spacing, 0, []
            line.append((item, hint, x))
            x += hint.width() + self._spacing
            line_height = max(line_height, hint.height())
        lines.append((y, line_height, line))
        if move:
            for top, tallest, placed in lines:
                for item, hint, left in placed:
                    width = min(hint.width(), area.width())
                    item.setGeometry(QRect(left, top + (tallest - hint.height()) // 2, width, hint.height()))
        return y + line_height - rect.y() + margins.bottom()


def flow_row(*widgets: QWidget, parent: QWidget | None = None) -> QWidget:
    """A widget holding `widgets` in a FlowLayout, to put where a QHBoxLayout row was."""
    row = QWidget(parent)
    layout = FlowLayout(row)
    layout.add_widgets(*widgets)
    row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
    return row
