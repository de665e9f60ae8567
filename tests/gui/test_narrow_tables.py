"""A table in a narrow window keeps its stretching column readable: the import preview's Notes on an 800x600
screen, where the sized columns (two IPv6 addresses wide) left it ~25 px."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QTableView
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from app.ui.security.transfer import COLUMNS
from tests.gui.test_security_transfer import CSV_FILE, open_preview
from tests.gui.test_small_screen import small_screen

__all__ = ["small_screen"]  # the fixture, used by name


def test_the_import_previews_notes_column_is_readable_at_800x600(
    small_screen: QRect,
    console: MainWindow,
    qtbot: QtBot,
    tab: SecurityTab,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    path = tmp_path / "entries.csv"
    path.write_text(CSV_FILE)
    preview = open_preview(qtbot, tab, monkeypatch, path)
    qtbot.waitUntil(preview.isVisible)
    assert preview.width() <= small_screen.width()
    notes = COLUMNS.index("Notes")
    header = preview.table.horizontalHeader()
    qtbot.waitUntil(lambda: header.sectionSize(notes) >= preview.table.viewport().width() // 4 - 2)
    assert header.sectionSize(notes) >= 150, header.sectionSize(notes)
    preview.resize(1300, preview.height())  # wider: the other columns get their full width back
    address = preview.table.fontMetrics().horizontalAdvance("ffff:ffff:ffff:ffff::/64") + 32
    qtbot.waitUntil(lambda: header.sectionSize(COLUMNS.index("Input")) == address)
    preview.reject()


def titles_readable(table: QTableView) -> list[str]:
    """The columns whose title a person cannot read: cut off past the viewport's right edge, or too narrow for
    it whole (with the sort arrow's room) unless the header elides it and it keeps three letters and "…"."""
    header = table.horizontalHeader()
    metrics = table.fontMetrics()
    right = table.viewport().width()
    elides = header.textElideMode() != Qt.TextElideMode.ElideNone
    unreadable = []
    for column in range(header.count()):
        title = str(table.model().headerData(column, Qt.Orientation.Horizontal))
        size = header.sectionSize(column)
        whole = size >= metrics.horizontalAdvance(title) + 20
        elided = elides and size >= metrics.horizontalAdvance(title[:3] + "…") + 20
        if header.sectionViewportPosition(column) + size > right + 1 or not (whole or elided):
            unreadable.append(title)
    return unreadable


def test_the_allowlists_titles_stay_readable_at_800_px_empty_and_with_a_list_to_scroll(
    console: MainWindow, qtbot: QtBot, tab: SecurityTab, tmp_path: Path
) -> None:
    console.resize(800, 600)
    table = tab.entries.table
    qtbot.waitUntil(lambda: table.viewport().width() < 800)
    qtbot.wait(50)
    # The scroll bar is always there (see EntriesPanel): an empty table leaves its width to the columns too.
    assert table.verticalScrollBar().isVisible()
    assert titles_readable(table) == []
    path = tmp_path / "many.csv"
    path.write_text("".join(f"203.0.113.{n}/32,office desk {n}\n" for n in range(1, 61)))
    plan = tab.service.plan_file_import(path)
    tab.service.import_entries(plan.to_send)
    qtbot.waitUntil(lambda: len(tab.service.entries) >= 60, timeout=20000)
    qtbot.waitUntil(table.verticalScrollBar().isVisible)
    qtbot.wait(50)
    assert titles_readable(table) == []
    assert table.horizontalScrollBar().maximum() == 0  # nothing to scroll sideways to
