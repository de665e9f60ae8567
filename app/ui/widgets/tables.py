"""Table views laid out from the font: one line per row, each column as wide as a sample of its text."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHeaderView, QTableView

STRETCH = None  # the column that takes the room left
STRETCH_SHARE = 4  # it keeps at least a quarter of the width: the others give way, their text elided
LEAST_SCALE = 0.4  # and they never shrink below this share of their sample's width


def size_columns(table: QTableView, samples: Sequence[str | None]) -> None:
    """Widths from the font, never from the rows: ResizeToContents would measure every row (100,000 in a
    big allowlist) on each change. Long cells are elided; the views give them a tooltip."""
    metrics = table.fontMetrics()
    header = table.horizontalHeader()
    widths: dict[int, int] = {}
    for column, sample in enumerate(samples):
        if sample is STRETCH:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        else:
            widths[column] = metrics.horizontalAdvance(sample) + 32  # padding and sort arrow
            header.resizeSection(column, widths[column])
    if len(widths) < len(samples):
        StretchRoom(table, widths)
    table.setWordWrap(False)
    rows = table.verticalHeader()
    rows.setVisible(False)
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(metrics.height() + 8)


class StretchRoom(QObject):
    """Keeps the stretching column readable in a narrow table (an 800 px screen left the import preview's
    Notes ~25 px): the sized columns shrink together, down to LEAST_SCALE, as the table narrows, and come back
    to their samples' widths when it widens. A column a person resized keeps its width until then."""

    def __init__(self, table: QTableView, widths: dict[int, int]) -> None:
        super().__init__(table)
        self.table, self.widths = table, widths
        self.scale = 1.0
        table.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width():
            self.fit(event.size().width())
        return False

    def header_width(self, column: int) -> int:
        """Its title whole, with the sort arrow: narrower, a centred title is cut at both ends."""
        title = self.table.model().headerData(column, Qt.Orientation.Horizontal)
        return self.table.fontMetrics().horizontalAdvance(str(title or "")) + 32

    def fit(self, width: int) -> None:
        fixed = sum(self.widths.values())
        least = width // STRETCH_SHARE
        scale = 1.0 if fixed <= 0 or width - fixed >= least else max(LEAST_SCALE, (width - least) / fixed)
        if abs(scale - self.scale) < 0.01:
            return
        self.scale = scale
        shrunk = {column: int(full * scale) for column, full in self.widths.items()}
        titled = {
            column: max(shrunk[column], min(full, self.header_width(column)))
            for column, full in self.widths.items()
        }
        # Whole titles come before that share, but not at the price of the stretching column's own title: an
        # 800 px window keeps every title whole; at 700 px a short description reads whole instead.
        stretching = [c for c in range(self.table.model().columnCount()) if c not in self.widths]
        room = max((self.header_width(column) for column in stretching), default=0)
        chosen = titled if width - sum(titled.values()) >= room else shrunk
        header = self.table.horizontalHeader()
        for column, section in chosen.items():
            header.resizeSection(column, section)
