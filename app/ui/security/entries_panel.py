"""The entries of the shown list: a filter, the table, and the button that removes the selected rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QPushButton, QTableView, QVBoxLayout, QWidget

from app.models.entries import EntriesModel
from app.ui.widgets.tables import STRETCH, size_columns

if TYPE_CHECKING:
    from app.services.security.allowlist import Entry


class EntriesPanel(QWidget):
    remove_clicked = Signal()

    def __init__(self, model: EntriesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.filter = QLineEdit(objectName="filter", placeholderText="Filter by address or description")
        self.filter.setAccessibleName("Filter entries")
        self.filter.textChanged.connect(model.set_filter)
        self.table = QTableView(objectName="entries")
        self.table.setAccessibleName("Allowlist entries")
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move between cells
        self.table.setModel(model)
        self.table.setSortingEnabled(True)
        # Addresses ascending on load (Qt's default indicator would sort the list descending at first).
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        size_columns(
            self.table,
            ("ffff:ffff:ffff:ffff::/64", STRETCH, "2026-12-31 23:59", "4,294,967,296", "Covers you"),
        )
        remove = QPushButton("Remove selected…", objectName="remove")
        remove.clicked.connect(self.remove_clicked)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(remove, alignment=Qt.AlignmentFlag.AlignRight)

    def selected_entries(self) -> list[Entry]:
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        return [self.model.entry(row) for row in sorted(rows)]
