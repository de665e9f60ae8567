"""Import with a preview before anything is sent, and export, of allowlist entries in CSV or JSON."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtGui import QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.netrules.transfer import ImportPlan, PlannedLine, Status
from app.services.allowlist import AllowlistService
from app.services.allowlist_checks import WHOLE_SPACE
from app.ui.widgets.tables import STRETCH, size_columns

from .guards import confirm_typed
from .scope_bar import plain_label

COLUMNS = ("Line", "Input", "Canonical", "Status", "Notes", "Result")
COLOURS = {
    Status.ADD: "#1a7f37",
    Status.DUPLICATE_OF_ENTRY: "#9a6700",
    Status.DUPLICATE_IN_FILE: "#9a6700",
    Status.REJECTED: "#cf222e",
    Status.OVER_LIMIT: "#cf222e",
}


class ImportDialog(QDialog):
    """The preview: every line with its canonical form and fate; Import sends only the new ones."""

    def __init__(
        self, service: AllowlistService, plan: ImportPlan, filename: str, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setWindowTitle(f"Import into {service.scope_label}: {filename}")
        self.setObjectName("import_dialog")
        self.resize(1100, 560)
        self.service = service
        self.plan = plan
        self.sent: list[PlannedLine] = plan.to_send
        self.summary = plain_label("import_summary")
        self.summary.setText(plan.summary())
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        for line in plan.lines:
            items = [
                QStandardItem(str(line.source.number)),
                QStandardItem(line.source.text),
                QStandardItem(line.canonical),
                QStandardItem(line.status.value),
                QStandardItem(" ".join(line.notes)),
                QStandardItem(""),
            ]
            items[3].setForeground(QColor(COLOURS[line.status]))
            items[1].setToolTip(plain_tip(line.source.text))
            items[4].setToolTip(plain_tip(items[4].text()))
            for item in items:
                item.setEditable(False)
            self.model.appendRow(items)
        index_in_plan = {id(line): row for row, line in enumerate(plan.lines)}
        self._row_of_sent = {i: index_in_plan[id(line)] for i, line in enumerate(self.sent)}
        self.table = QTableView(objectName="import_preview")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        address = "ffff:ffff:ffff:ffff::/64"
        size_columns(
            self.table, ("99,999", address, address, "repeats an earlier line", STRETCH, "✓ ipal_0123456789")
        )
        self.detail = plain_label("import_detail")  # the chosen line's notes, whole
        self.table.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self.detail.setText(
                f"Line {item_text(self.model, current.row(), 0)}: {item_text(self.model, current.row(), 4)}"
                if item_text(self.model, current.row(), 4)
                else ""
            )
        )
        self.result_label = plain_label("import_result")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.import_button = QPushButton(f"Import {len(self.sent):,}", objectName="import_go")
        self.import_button.setEnabled(bool(self.sent))
        buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.clicked.connect(self._import)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addWidget(self.result_label)
        layout.addWidget(buttons)
        service.line_imported.connect(self._line_done)
        service.changed_elsewhere.connect(self._stale)
        self._done = self._failed = 0

    def _import(self) -> None:
        whole = [line.canonical for line in self.sent if line.canonical in WHOLE_SPACE]
        if whole:
            if not confirm_typed(
                self,
                "Admit every address?",
                f"{', '.join(whole)} admits every address of its family: the list is switched off in effect.",
                "ALLOW ALL",
            ):
                self.result_label.setText("Nothing was sent.")
                return
        self.import_button.setEnabled(False)
        self.result_label.setText(f"Sending {len(self.sent):,} entries…")
        self.service.import_entries(self.sent)

    def _line_done(self, index: int, ok: bool, what: str) -> None:
        row = self._row_of_sent.get(index)
        if row is None:
            return
        item = self.model.item(row, 5)
        item.setText(("✓ " if ok else "✗ ") + what)
        item.setToolTip(plain_tip(what))
        item.setForeground(QColor("#1a7f37" if ok else "#cf222e"))
        if ok:
            self._done += 1
        else:
            self._failed += 1
        if self._done + self._failed == len(self.sent):
            self.result_label.setText(
                f"{self._done:,} added"
                + (f", {self._failed:,} failed: see the Result column." if self._failed else ".")
            )

    def _stale(self, text: str) -> None:
        self.result_label.setText(text + " Nothing was sent: open the file again for a fresh preview.")

    def done_counts(self) -> tuple[int, int]:
        return self._done, self._failed

    def closeEvent(self, event: Any) -> None:
        self.service.line_imported.disconnect(self._line_done)
        self.service.changed_elsewhere.disconnect(self._stale)
        super().closeEvent(event)


def plain_tip(text: str) -> str:
    """A tooltip that shows `text` as text: Qt guesses rich text in tooltips, so say it and escape."""
    return f"<p>{html.escape(text)}</p>" if text else ""


def item_text(model: QStandardItemModel, row: int, column: int) -> str:
    item = model.item(row, column)
    return item.text() if item is not None else ""
