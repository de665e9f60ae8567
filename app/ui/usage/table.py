"""The Usage tab's table: a row per project, model or key with its requests, tokens and cost over the range
and the period before; sorted by any column (numbers as numbers), saved as CSV."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem, QWidget

from app.core.usage.series import TableRow

COLUMNS = (
    "Group",
    "Requests",
    "Input",
    "Cached",
    "Output",
    "Reasoning",
    "Total tokens",
    "Cost",
    "Before: tokens",
    "Before: cost",
)
SORT_KEY = Qt.ItemDataRole.UserRole


class SortedItem(QTableWidgetItem):
    """A cell that sorts by the number behind its text ("$1,204.50" after "$99.00")."""

    def __lt__(self, other: QTableWidgetItem) -> bool:
        mine, theirs = self.data(SORT_KEY), other.data(SORT_KEY)
        if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)):
            return mine < theirs
        return self.text().casefold() < other.text().casefold()


def _cell(text: str, key: float | None = None) -> SortedItem:
    item = SortedItem(text)
    item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
    if key is not None:
        item.setData(SORT_KEY, key)
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


def money(value: float) -> str:
    return f"${value:,.4f}" if 0 < value < 0.01 else f"${value:,.2f}"


class UsageTable(QTableWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(COLUMNS), parent)
        self.setObjectName("usage_table")
        self.setHorizontalHeaderLabels(COLUMNS)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().hide()
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setSortingEnabled(True)
        self.sortByColumn(6, Qt.SortOrder.DescendingOrder)
        self.rows: list[TableRow] = []

    def show_rows(self, grouping_label: str, rows: Sequence[TableRow]) -> None:
        self.rows = list(rows)
        self.setHorizontalHeaderItem(0, QTableWidgetItem(grouping_label))
        self.setSortingEnabled(False)  # filled unsorted, then sorted once by the column chosen
        self.setRowCount(len(rows))
        for index, row in enumerate(rows):
            numbers = (
                row.requests,
                row.input_tokens,
                row.cached_tokens,
                row.output_tokens,
                row.reasoning_tokens,
                row.tokens,
            )
            self.setItem(index, 0, _cell(row.group))
            for column, number in enumerate(numbers, start=1):
                self.setItem(index, column, _cell(f"{number:,}", number))
            self.setItem(index, 7, _cell(money(row.cost), row.cost))
            self.setItem(index, 8, _cell(f"{row.previous_tokens:,}", row.previous_tokens))
            self.setItem(index, 9, _cell(money(row.previous_cost), row.previous_cost))
        self.setSortingEnabled(True)

    def column_texts(self, column: int) -> list[str]:
        """A column as shown, top to bottom (in the sort order chosen)."""
        return [item.text() for row in range(self.rowCount()) if (item := self.item(row, column))]
