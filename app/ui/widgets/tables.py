"""Table views laid out from the font: one line per row, each column as wide as a sample of its text."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QHeaderView, QTableView

STRETCH = None  # the column that takes the room left


def size_columns(table: QTableView, samples: Sequence[str | None]) -> None:
    """Widths from the font, never from the rows: ResizeToContents would measure every row (100,000 in a
    big allowlist) on each change. Long cells are elided; the views give them a tooltip."""
    metrics = table.fontMetrics()
    header = table.horizontalHeader()
    for column, sample in enumerate(samples):
        if sample is STRETCH:
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Stretch)
        else:
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 32)  # padding and sort arrow
    table.setWordWrap(False)
    rows = table.verticalHeader()
    rows.setVisible(False)
    rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    rows.setDefaultSectionSize(metrics.height() + 8)
