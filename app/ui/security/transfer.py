"""Import with a preview before anything is sent, and export, of allowlist entries in CSV or JSON."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.common.wording import counted
from app.netrules.transfer import ImportPlan, PlannedLine, Status
from app.services.security.allowlist import AllowlistService
from app.ui.colours import Ink, css, qcolor
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.tables import STRETCH, size_columns

from .guards import confirm_typed
from .scope_bar import plain_label

COLUMNS = ("Line", "Input", "Canonical", "Status", "Notes", "Result")
BAD, AMBER, INK = Ink.BAD, Ink.HIGHLIGHT_BACKGROUND, Ink.HIGHLIGHT_TEXT  # qcolor() at use
COLOURS = {
    Status.ADD: Ink.GOOD,
    Status.DUPLICATE_OF_ENTRY: Ink.CAUTION,
    Status.DUPLICATE_IN_FILE: Ink.CAUTION,
    Status.REJECTED: BAD,
    Status.OVER_LIMIT: BAD,
    Status.LEFT_OUT: Ink.MUTED,
}
ALLOWS_ALL = "⚠ ALLOWS EVERY ADDRESS"
TICK_TIP = "Untick to leave this line out of the import; the file is not changed."
NEVER_SENT_TIP = "Never sent: rejected, or already on the list."


class ImportDialog(QDialog):
    """The preview: every line with its canonical form and fate, and a tick to leave it out; Import sends
    only the new lines still ticked, and says how many."""

    def __init__(
        self, service: AllowlistService, plan: ImportPlan, filename: str, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setWindowTitle(f"Import into {service.scope_label}: {filename}")
        self.setObjectName("import_dialog")
        fit_to_screen(self, 1100, 560)
        self.service = service
        self.plan = plan
        self.sent: list[PlannedLine] = []
        self._row_of_sent: dict[int, int] = {}
        self.summary = plain_label("import_summary")
        # Above the table, in words and in red: a line that would switch the list off in effect.
        self.warning = plain_label("import_warning")
        self.warning.setStyleSheet(css(BAD, "font-weight: bold;"))
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(COLUMNS)
        for line in plan.lines:
            items = [QStandardItem(str(line.source.number)), QStandardItem(line.source.text)]
            items += [QStandardItem() for _ in COLUMNS[2:]]
            items[1].setToolTip(plain_tip(line.source.text))
            for item in items:
                item.setEditable(False)
            tick = items[0]
            tick.setCheckState(Qt.CheckState.Checked if line.status.choosable else Qt.CheckState.Unchecked)
            tick.setCheckable(line.status.choosable)
            tick.setToolTip(TICK_TIP if line.status.choosable else NEVER_SENT_TIP)
            self.model.appendRow(items)
        self.table = QTableView(objectName="import_preview")
        self.table.setAccessibleName("Import preview")
        self.table.setTabKeyNavigation(False)
        self.table.setModel(self.model)
        self.table.setItemDelegateForColumn(0, TickDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        address = "ffff:ffff:ffff:ffff::/64"
        size_columns(
            self.table,
            ("☐ 99,999", address, address, "add: ⚠ ALLOWS EVERY ADDRESS", STRETCH, "✓ ipal_0123456789"),
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
        self.import_button = QPushButton(objectName="import_go")
        buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.import_button.clicked.connect(self._import)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.warning)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.detail)
        layout.addWidget(self.result_label)
        layout.addWidget(buttons)
        self._show_plan()
        self.model.itemChanged.connect(self._ticked)
        service.line_imported.connect(self._line_done)
        service.changed_elsewhere.connect(self._stale)
        self._done = self._failed = 0

    def _ticked(self, item: QStandardItem) -> None:
        if item.column() != 0 or self.sent:
            return
        left_out = {
            row
            for row in range(self.model.rowCount())
            if self.model.item(row, 0).isCheckable()
            and self.model.item(row, 0).checkState() != Qt.CheckState.Checked
        }
        if left_out != self.plan.left_out:
            self.plan = self.plan.leaving_out(left_out)
            self._show_plan()

    def _show_plan(self) -> None:
        """Each line's canonical form, fate and notes as planned now; the counts and the warning above."""
        self.model.blockSignals(True)  # only cells change here, never a tick
        for row, line in enumerate(self.plan.lines):
            flagged = line.sendable and line.admits_all
            status = self.model.item(row, 3)
            status.setText(f"{line.status.value}: {ALLOWS_ALL}" if flagged else line.status.value)
            status.setForeground(qcolor(BAD if flagged else COLOURS[line.status]))
            self.model.item(row, 2).setText(line.canonical)
            notes = self.model.item(row, 4)
            notes.setText(" ".join(line.notes))
            notes.setToolTip(plain_tip(notes.text()))
            for column in range(len(COLUMNS)):
                cell = self.model.item(row, column)
                # Cleared, not set to an empty brush: that would override the palette (a greyed tick's text).
                cell.setData(qcolor(AMBER) if flagged else None, Qt.ItemDataRole.BackgroundRole)
                if column != 3:
                    cell.setData(qcolor(INK) if flagged else None, Qt.ItemDataRole.ForegroundRole)
        self.model.blockSignals(False)
        self.table.viewport().update()
        self.summary.setText(self.plan.summary())
        warning = self.plan.allow_all_warning()
        self.warning.setText(warning)
        self.warning.setVisible(bool(warning))
        count = len(self.plan.to_send)
        self.import_button.setText(f"Import {count:,}")
        self.import_button.setEnabled(bool(count))

    def _import(self) -> None:
        lines = self.plan.to_send
        whole = [line.canonical for line in lines if line.admits_all]
        if whole:
            if not confirm_typed(
                self,
                "Admit every address?",
                f"{', '.join(whole)} admits every address of its family: the list is switched off in effect.",
                "ALLOW ALL",
            ):
                self.result_label.setText("Nothing was sent.")
                return
        self.sent = lines
        index_in_plan = {id(line): row for row, line in enumerate(self.plan.lines)}
        self._row_of_sent = {i: index_in_plan[id(line)] for i, line in enumerate(lines)}
        for row in range(self.model.rowCount()):  # what is sent is settled: the ticks no longer change it
            self.model.item(row, 0).setCheckable(False)
        self.import_button.setEnabled(False)
        self.result_label.setText(f"Sending {counted(len(lines), 'entry', 'entries')}…")
        self.service.import_entries(lines)

    def _line_done(self, index: int, ok: bool, what: str) -> None:
        row = self._row_of_sent.get(index)
        if row is None:
            return
        item = self.model.item(row, 5)
        item.setText(("✓ " if ok else "✗ ") + what)
        item.setToolTip(plain_tip(what))
        item.setForeground(qcolor(Ink.GOOD if ok else Ink.BAD))
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


class TickDelegate(QStyledItemDelegate):
    """Draws the tick of a line that can never be sent greyed out; the line stays selectable for its notes."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if not index.flags() & Qt.ItemFlag.ItemIsUserCheckable:
            option.state &= ~QStyle.StateFlag.State_Enabled


def plain_tip(text: str) -> str:
    """A tooltip that shows `text` as text: Qt guesses rich text in tooltips, so say it and escape."""
    return f"<p>{html.escape(text)}</p>" if text else ""


def item_text(model: QStandardItemModel, row: int, column: int) -> str:
    item: QStandardItem | None = model.item(row, column)  # None past the last row, whatever the stub says
    return item.text() if item is not None else ""
