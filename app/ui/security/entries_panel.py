"""The entries of the shown list: a filter and a view (expired, expiring, not matched in N days), the table,
and the buttons that extend the selected entries or remove the selected or the shown ones."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.common.wording import counted
from app.core.security.entry_views import EntryView
from app.models.entries import NUMBERS, EntriesModel
from app.ui.widgets.tables import STRETCH, size_columns
from app.ui.widgets.text_cells import TextCells

from .expiry_menu import Expiry, ExpiryMenu

if TYPE_CHECKING:
    from app.services.security.allowlist import Entry


class EntriesPanel(QWidget):
    remove_clicked = Signal()
    remove_shown_clicked = Signal()
    extend_chosen = Signal(Expiry)  # the selected entries' new expiry

    def __init__(self, model: EntriesModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.filter = QLineEdit(objectName="filter", placeholderText="Filter by address or description")
        self.filter.setAccessibleName("Filter entries")
        self.filter.textChanged.connect(model.set_filter)
        self.view = QComboBox(objectName="entry_view")
        for view in EntryView:
            self.view.addItem(view.label, view)
        self.view.setToolTip("Show only the expired or expiring entries, or those no request matched lately")
        self.days = QSpinBox(objectName="stale_days", minimum=1, maximum=3650, value=30, suffix=" days")
        self.days.setToolTip("Not matched in this many days: no request admitted by the entry since")
        self.days.hide()
        self.view.currentIndexChanged.connect(self._view_changed)
        self.days.valueChanged.connect(self._view_changed)
        self.table = QTableView(objectName="entries")
        self.table.setAccessibleName("Allowlist entries")
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; the arrows move between cells
        self.table.setModel(model)
        self.table.setSortingEnabled(True)
        # Addresses ascending on load (Qt's default indicator would sort the list descending at first).
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        # Always there: a scroll bar appearing as a long list's rows come would narrow the viewport, and Qt
        # repaints the resized columns from a timer, after `paint_now`, beside the index's build.
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        TextCells(self.table, model.text, NUMBERS)  # drawn cheaply: the table repaints on every keystroke
        size_columns(
            self.table,
            (
                "ffff:ffff:ffff:ffff::/64",
                STRETCH,
                "in 23 h 59 min",
                "1,234,567",
                "23 h 59 min ago",
                "2026-12-31",
                "4,294,967,296",
                "Covers you",
            ),
        )
        self.count = QLabel(objectName="shown_count")
        self.extend = QPushButton("Extend…", objectName="extend")
        self.extend.setToolTip("Give the selected entries a new expiry")
        self.extend_menu = ExpiryMenu(self.extend, with_never=True)
        self.extend_menu.chosen.connect(self.extend_chosen)
        self.extend.setMenu(self.extend_menu)
        remove = QPushButton("Remove selected…", objectName="remove")
        remove.clicked.connect(self.remove_clicked)
        self.remove_shown = QPushButton("Remove all shown…", objectName="remove_shown", enabled=False)
        self.remove_shown.setToolTip("Remove every entry the view shows (expired, expiring or stale)")
        self.remove_shown.clicked.connect(self.remove_shown_clicked)
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.view)
        top.addWidget(self.days)
        buttons = QHBoxLayout()
        buttons.addWidget(self.count, 1)
        buttons.addWidget(self.extend)
        buttons.addWidget(self.remove_shown)
        buttons.addWidget(remove)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        model.modelReset.connect(self._count)
        model.layoutChanged.connect(self._count)

    def paint_now(self) -> None:
        """The rows on screen now, painted once, with nothing of it left for later: laid out, painted, and
        the window's pending paint (posted by the model's reset) delivered, which then has nothing left to
        draw. A long list's index is built on a worker next: a paint left pending would run beside that
        build, each of its ~250 cells waiting for the GIL, so that a paint of ~5 ms holds the GUI thread many
        times as long (see tests/perf/bench_allowlist_table's longest block)."""
        self.table.doItemsLayout()
        self.table.viewport().repaint()
        QCoreApplication.sendPostedEvents(self.table.window(), QEvent.Type.UpdateRequest)

    def _view_changed(self) -> None:
        view = EntryView(self.view.currentData())
        self.days.setVisible(view is EntryView.NOT_MATCHED)
        self.model.set_view(view, self.days.value())
        self.remove_shown.setEnabled(view is not EntryView.ALL)

    def _count(self) -> None:
        shown, total = self.model.rowCount(), len(self.model.entries)
        self.count.setText(
            f"{shown:,} of {counted(total, 'entry', 'entries')}"
            if shown != total
            else counted(total, "entry", "entries")
        )

    def selected_entries(self) -> list[Entry]:
        rows = {index.row() for index in self.table.selectionModel().selectedRows()}
        return [self.model.entry(row) for row in sorted(rows)]

    def shown_entries(self) -> list[Entry]:
        return [self.model.entry(row) for row in range(self.model.rowCount())]
