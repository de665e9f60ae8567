"""The changes made from this console, newest first, with a filter: when, profile, scope, what, result."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.services.security.history import ChangeHistory, ChangeRecord
from app.ui.colours import Ink, qcolor
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.tables import STRETCH, size_columns

COLUMNS = ("When", "Profile", "Scope", "Action", "What", "Result")


def local_time(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return iso


class HistoryDialog(QDialog):
    def __init__(self, history: ChangeHistory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Allowlist changes made from this console")
        self.setObjectName("history_dialog")
        fit_to_screen(self, 960, 480)
        self.history = history
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter = QLineEdit(
            objectName="history_filter", placeholderText="Filter by address, scope, action…"
        )
        self.filter.textChanged.connect(self.proxy.setFilterFixedString)
        self.table = QTableView(objectName="history_table")
        self.table.setAccessibleName("Change history")
        self.table.setTabKeyNavigation(False)
        self.table.setModel(self.proxy)
        size_columns(
            self.table,
            (
                "2026-12-31 23:59:59",
                "Local sandbox",
                "Project: a project",
                "rotate: remove",
                STRETCH,
                "refused: ip_not_allowed",
            ),
        )
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        clear = QPushButton("Clear history…", objectName="clear_history")
        buttons.addButton(clear, QDialogButtonBox.ButtonRole.ResetRole)
        clear.clicked.connect(self._clear)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        for record in reversed(history.records()):
            self._append(record, at_top=False)
        history.recorded.connect(self._append)

    def _append(self, record: ChangeRecord, at_top: bool = True) -> None:
        values = (
            local_time(record.at),
            record.profile,
            record.scope,
            record.action,
            record.what,
            record.result,
        )
        items = [QStandardItem(value) for value in values]
        for item in items[4:]:
            item.setToolTip(item.text())
        items[5].setForeground(qcolor(Ink.GOOD if record.ok else Ink.BAD))
        if at_top:
            self.model.insertRow(0, items)
        else:
            self.model.appendRow(items)

    def _clear(self) -> None:
        if (
            QMessageBox.question(self, "Clear history", "Forget every recorded change?")
            == QMessageBox.StandardButton.Yes
        ):
            self.history.clear()
            self.model.removeRows(0, self.model.rowCount())

    def closeEvent(self, event) -> None:
        self.history.recorded.disconnect(self._append)
        super().closeEvent(event)
