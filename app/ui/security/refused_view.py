"""Refused requests…: the requests the allowlists turned away, per source and refusing list (count, first and last
seen, the latest path), newest first, read again every second while open; "Allow…" adds the selected
source to the list that refused it, with the expiry chosen (1 hour, 1 day, 1 week, a date, or never)."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtGui import QCloseEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.security.refused_rows import RefusedRow
from app.services.security.refused import RefusedService
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.tables import STRETCH, size_columns

from .expiry_menu import Expiry, ExpiryMenu

COLUMNS = ("Source", "Requests", "First seen", "Last seen", "Refused by", "Latest path")


def local_time(at: int) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S") if at else ""


class RefusedDialog(QDialog):
    def __init__(self, service: RefusedService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Refused requests: what the allowlists turned away")
        self.setObjectName("refused_dialog")
        fit_to_screen(self, 980, 460)
        self.service = service
        self.shown: list[RefusedRow] = []
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.table = QTableView(objectName="refused_table")
        self.table.setAccessibleName("Refused requests")
        self.table.setTabKeyNavigation(False)
        self.table.setModel(self.model)
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        size_columns(
            self.table,
            (
                "ffff:ffff:ffff:ffff::1",
                "1,234,567",
                "2026-12-31 23:59:59",
                "2026-12-31 23:59:59",
                "the organization's list",
                STRETCH,
            ),
        )
        self.status = QLabel(objectName="refused_status")
        self.status.setWordWrap(True)
        self.allow = QPushButton("Allow…", objectName="allow_refused", enabled=False)
        self.allow.setToolTip("Add the selected source to the list that refused it, with an expiry")
        self.allow_menu = ExpiryMenu(self.allow, with_never=True)
        self.allow_menu.chosen.connect(self._allow)
        self.allow.setMenu(self.allow_menu)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.allow, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._selection())
        service.changed.connect(self._show)
        self._show()
        service.open()

    def selected(self) -> RefusedRow | None:
        rows = self.table.selectionModel().selectedRows()
        return self.shown[rows[0].row()] if rows else None

    def _selection(self) -> None:
        self.allow.setEnabled(self.selected() is not None)

    def _show(self) -> None:
        chosen = self.selected()
        self.shown = self.service.rows()
        self.model.removeRows(0, self.model.rowCount())
        for row in self.shown:
            values = (
                row.source_ip,
                f"{row.count:,}",
                local_time(row.first_seen),
                local_time(row.last_seen),
                row.refused_by,
                row.path,
            )
            items = [QStandardItem(value) for value in values]
            items[5].setToolTip(row.path)
            self.model.appendRow(items)
        if chosen is not None:  # the selection stays on its source as rows come in
            for number, row in enumerate(self.shown):
                if row.key == chosen.key:
                    self.table.selectRow(number)
        self._selection()
        total = sum(row.count for row in self.shown)
        said = f"{total:,} refused request{'s' if total != 1 else ''} from {len(self.shown):,} source{'s' if len(self.shown) != 1 else ''}"
        self.status.setText(self.service.error or (said if self.shown else "No request was refused."))

    def _allow(self, expiry: Expiry) -> None:
        row = self.selected()
        if row is not None:
            self.service.allow(row, "allowed from Refused", expiry.at)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.service.close()
        self.service.changed.disconnect(self._show)
        super().closeEvent(event)
