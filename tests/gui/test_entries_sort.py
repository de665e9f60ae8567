"""A click on a column header of a long list: the window goes on answering while the rows are sorted off the
GUI thread, then they show in the column's order, the filter, the selection and the scroll position kept."""

from __future__ import annotations

import ipaddress
import threading

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.api.admin import Entry
from app.core.security.checks import index_of
from app.core.security.entry_search import EntrySearch
from app.core.security.state import BUILDER
from app.models.entries import DESCRIPTION, SORT_HERE_UP_TO, EntriesModel
from app.ui.security.entries_panel import EntriesPanel


def shown_panel(qtbot: QtBot) -> tuple[EntriesModel, EntriesPanel]:
    """An empty entries panel on its own model, shown at 1000x760 (the Security tab's table at a large size)."""
    model = EntriesModel()
    panel = EntriesPanel(model)
    qtbot.addWidget(panel)
    panel.resize(1000, 760)
    panel.show()
    qtbot.waitExposed(panel)
    return model, panel


def click_header(qtbot: QtBot, panel: EntriesPanel, column: int) -> None:
    header = panel.table.horizontalHeader()
    middle = QPoint(
        header.sectionViewportPosition(column) + header.sectionSize(column) // 2, header.height() // 2
    )
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=middle)


def descriptions(panel: EntriesPanel) -> list[str]:
    model = panel.model
    return [model.entry(row).description for row in range(model.rowCount())]


def test_a_header_click_sorts_a_long_list_while_the_window_goes_on(qtbot: QtBot) -> None:
    entries = [
        Entry(
            id=f"ipal_{i}", cidr=f"10.{i // 256}.{i % 256}.0/24", description=f"Site {(i * 37) % 1000} office"
        )
        for i in range(SORT_HERE_UP_TO + 1_000)
    ]
    model, panel = shown_panel(qtbot)
    index = index_of(entries)
    model.set_entries(
        entries, ipaddress.ip_address("10.0.5.9"), index, EntrySearch(entries, index.address_order())
    )
    qtbot.keyClicks(panel.filter, "office")
    panel.table.selectRow(3)
    panel.table.verticalScrollBar().setValue(40)
    by_address = descriptions(panel)

    # The builder thread busy (a list's index being built): the click's sort waits behind it, and meanwhile
    # the window answers and shows the rows as they were.
    busy, release = threading.Event(), threading.Event()

    def build() -> None:
        busy.set()
        release.wait(10)

    BUILDER.submit(build)
    busy.wait(10)
    try:
        click_header(qtbot, panel, DESCRIPTION)
        qtbot.wait(50)
        assert panel.table.horizontalHeader().sortIndicatorSection() == DESCRIPTION
        assert descriptions(panel) == by_address  # not sorted on the GUI thread
    finally:
        release.set()
    ascending = sorted(by_address, key=str.lower)
    qtbot.waitUntil(lambda: descriptions(panel) == ascending)

    click_header(qtbot, panel, DESCRIPTION)  # again: the other way
    assert panel.table.horizontalHeader().sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    descending = sorted(by_address, key=str.lower, reverse=True)
    qtbot.waitUntil(lambda: descriptions(panel) == descending)
    assert all("office" in text for text in descending)  # the filter holds
    selected = [index.row() for index in panel.table.selectionModel().selectedRows()]
    assert selected == [3] and panel.table.verticalScrollBar().value() == 40  # as a sort at once left them
    QApplication.processEvents()
