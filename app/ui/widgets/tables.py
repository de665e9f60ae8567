"""Table views laid out from the font: one line per row, each column as wide as a sample of its text."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QHeaderView, QTableView

STRETCH = None  # the column that takes the room left
STRETCH_SHARE = 4  # it keeps at least a quarter of the width: the others give way, their text elided
LEAST_SCALE = 0.4  # and they never shrink below this share of their sample's width
ELIDED_LETTERS = 3  # nor below this many letters of their title and an ellipsis


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
    header.setTextElideMode(
        Qt.TextElideMode.ElideRight
    )  # a title that lacks room ends in "…", not cut at both ends
    rows = table.verticalHeader()
    rows.setVisible(False)
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(metrics.height() + 8)


class StretchRoom(QObject):
    """Keeps the stretching column readable in a narrow table (an 800 px screen left the import preview's
    Notes ~25 px) and every title readable: the sized columns shrink together, down to LEAST_SCALE and never
    below their titles, as the viewport narrows (a vertical scrollbar appearing narrows it too), and come back
    to their samples' widths when it widens. A column a person resized keeps its width until then."""

    def __init__(self, table: QTableView, widths: dict[int, int]) -> None:
        super().__init__(table)
        self.table, self.widths = table, widths
        self.applied: dict[int, int] = {}
        table.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width():
            self.fit(event.size().width())
        return False

    def header_width(self, column: int) -> int:
        """Its title whole, with the sort arrow: narrower, a centred title is cut at both ends."""
        title = self.table.model().headerData(column, Qt.Orientation.Horizontal)
        return self.table.fontMetrics().horizontalAdvance(str(title or "")) + 32

    def elided_width(self, column: int) -> int:
        """The least a title is read in: its first letters and an ellipsis, beside the sort arrow."""
        title = str(self.table.model().headerData(column, Qt.Orientation.Horizontal) or "")
        return self.table.fontMetrics().horizontalAdvance(title[:ELIDED_LETTERS] + "…") + 32

    def fit(self, width: int) -> None:
        """Size the columns for a viewport `width` wide (the vertical scrollbar's width already taken off)."""
        chosen = self.sections(width)
        if chosen == self.applied:
            return  # a column the person resized keeps its width until the table's width changes the fit
        self.applied = chosen
        header = self.table.horizontalHeader()
        for column, section in chosen.items():
            header.resizeSection(column, section)

    def sections(self, width: int) -> dict[int, int]:
        """Each sized column's width in a viewport `width` wide. Every title stays readable: whole where they
        all fit beside the stretching column's own title, elided where even that is too wide; the rest of
        the room shrinks the samples together, down to LEAST_SCALE, leaving the stretching column a share."""
        fixed = sum(self.widths.values())
        stretching = [c for c in range(self.table.model().columnCount()) if c not in self.widths]
        room = max((self.header_width(column) for column in stretching), default=0)
        share = max(room, width // STRETCH_SHARE)
        scale = 1.0 if fixed <= 0 else min(1.0, max(LEAST_SCALE, (width - share) / fixed))
        titled = {
            column: max(int(full * scale), min(full, self.header_width(column)))
            for column, full in self.widths.items()
        }
        over = sum(titled.values()) - (width - room)
        if over <= 0:
            return titled
        # Too narrow for every title whole: each gives way in proportion to what it has above its elided
        # title, and none goes below that (past it, the table scrolls sideways rather than lose a title).
        floors = {column: min(titled[column], self.elided_width(column)) for column in titled}
        slack = sum(titled[column] - floors[column] for column in titled)
        if slack <= 0:
            return titled
        give = min(1.0, over / slack)
        return {
            column: titled[column] - int((titled[column] - floors[column]) * give + 0.999)
            for column in titled
        }
