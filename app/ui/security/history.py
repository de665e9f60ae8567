"""History: the service's audit log (every admin, script and the service itself) and the changes made from
this console, merged by time, newest first; the Source column says which is which. The log comes in pages:
"Load older" reads the next one."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QSortFilterProxyModel, Qt
from PySide6.QtGui import QCloseEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.core.security.history_rows import HistoryRow, Source, merged
from app.services.security.audit import AuditLog
from app.services.security.history import ChangeHistory, ChangeRecord
from app.ui.colours import Ink, qcolor
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.tables import STRETCH, size_columns

COLUMNS = ("When", "Source", "Who", "Scope", "Action", "What", "Result")
SOURCE_INKS = {Source.SERVICE: Ink.INFO, Source.CONSOLE: Ink.MUTED}


def local_time(at: float) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S") if at else ""


class HistoryDialog(QDialog):
    def __init__(self, history: ChangeHistory, audit: AuditLog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Allowlist history: the service's log and this console's changes")
        self.setObjectName("history_dialog")
        fit_to_screen(self, 1100, 520)
        self.history = history
        self.audit = audit
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.filter = QLineEdit(
            objectName="history_filter", placeholderText="Filter by address, source, who, action…"
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
                "this console",
                "dashboard (1.2.3.4)",
                "Project: a project",
                "remove",
                STRETCH,
                "refused: would_block",
            ),
        )
        self.table.setEditTriggers(QTableView.EditTrigger.NoEditTriggers)
        self.status = QLabel(objectName="history_status")
        self.status.setWordWrap(True)
        self.load_older = QPushButton("Load older", objectName="load_older")
        self.load_older.setToolTip("Read the next page of the service's log")
        self.load_older.clicked.connect(audit.load_more)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.load_older, QDialogButtonBox.ButtonRole.ActionRole)
        clear = QPushButton("Clear this console's history…", objectName="clear_history")
        buttons.addButton(clear, QDialogButtonBox.ButtonRole.ResetRole)
        clear.clicked.connect(self._clear)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        audit.changed.connect(self._show)
        history.recorded.connect(self._recorded)
        self._show()
        audit.restart()

    def rows(self) -> list[HistoryRow]:
        return merged(self.audit.console_rows(), self.audit.rows, self.audit.complete)

    def _recorded(self, _record: ChangeRecord) -> None:
        self.audit.restart()  # the service logged it too: read the newest page again

    def _show(self) -> None:
        self.model.removeRows(0, self.model.rowCount())
        for row in self.rows():
            self._append(row)
        audit = self.audit
        loaded = f"{len(audit.rows):,} event{'s' if len(audit.rows) != 1 else ''} of the service's log"
        more = " (older ones: Load older)" if not audit.complete else ""
        self.status.setText(audit.error or ("Reading the service's log…" if audit.loading else loaded + more))
        self.load_older.setEnabled(not audit.complete and not audit.loading)

    def _append(self, row: HistoryRow) -> None:
        values = (
            local_time(row.at),
            row.source.value,
            row.who,
            row.scope,
            str(row.action),
            row.what,
            row.result,
        )
        items = [QStandardItem(value) for value in values]
        for item in (items[2], *items[5:]):  # long cells are elided: the tooltip has them whole
            item.setToolTip(item.text())
        if row.from_address:
            items[2].setToolTip(f"{row.who}, from {row.from_address}")
        items[1].setForeground(qcolor(SOURCE_INKS[row.source]))
        items[6].setForeground(qcolor(Ink.GOOD if row.ok else Ink.BAD))
        self.model.appendRow(items)

    def _clear(self) -> None:
        if (
            QMessageBox.question(
                self,
                "Clear history",
                "Forget every change recorded by this console? The service's log stays.",
            )
            == QMessageBox.StandardButton.Yes
        ):
            self.history.clear()
            self._show()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.history.recorded.disconnect(self._recorded)
        self.audit.changed.disconnect(self._show)
        super().closeEvent(event)
