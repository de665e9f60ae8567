"""A table in a narrow window keeps its stretching column readable: the import preview's Notes on an 800x600
screen, where the sized columns (two IPv6 addresses wide) left it ~25 px."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect
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
