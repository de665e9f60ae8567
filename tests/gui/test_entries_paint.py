"""A long list's rows are painted once when shown, with no paint left pending: the index's build starts on a
worker right after, and a paint left for later would run beside it, each cell waiting for the GIL."""

from __future__ import annotations

import ipaddress

import pytest
from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QApplication, QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from app.api.admin import Entry
from app.ui.widgets.text_cells import TextCells
from tests.gui.test_entries_sort import shown_panel


def test_rows_shown_are_painted_once_and_leave_no_paint_pending(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    cells: list[int] = []
    paint = TextCells.paint

    def counted(
        self: TextCells,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        cells.append(index.row())
        paint(self, painter, option, index)

    monkeypatch.setattr(TextCells, "paint", counted)
    model, panel = shown_panel(qtbot)
    QApplication.processEvents()
    entries = [
        Entry(id=f"ipal_{i}", cidr=f"10.{i // 256}.{i % 256}.0/24", description="office")
        for i in range(3_000)
    ]
    model.set_entries(entries, ipaddress.ip_address("10.0.0.1"))  # no index yet: as a long list's rows first
    cells.clear()
    panel.paint_now()
    painted = len(cells)
    assert painted > 0 and set(cells) == set(range(max(cells) + 1))  # the rows on screen, from the first
    qtbot.wait(50)  # the event loop's timers too: Qt repaints a resized column from a timer
    assert len(cells) == painted  # nothing left for the event loop to paint beside the index's build
