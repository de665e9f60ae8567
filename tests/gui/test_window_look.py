"""What a person reads at 800x600 reads whole: the conversations' search hint beside New, and the entries
table under the Security tab's scope bar keeps rows to show."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QLineEdit, QTableView
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child


def test_the_conversation_search_shows_its_hint_whole(console: MainWindow, qtbot: QtBot) -> None:
    console.resize(800, 600)
    console.tabs.setCurrentWidget(console.playground)
    search = console.playground.sidebar.search
    qtbot.waitUntil(search.isVisible)
    qtbot.wait(50)  # the layout's pass after the resize
    hint = search.placeholderText()
    # The clear button's room on the right, the frame's on the left.
    assert search.fontMetrics().horizontalAdvance(hint) + search.height() + 8 <= search.width(), (
        hint,
        search.width(),
    )
    assert search.accessibleName() == "Search conversations"


def test_the_entries_table_keeps_five_rows_at_800x600(
    console: MainWindow, qtbot: QtBot, tab: SecurityTab
) -> None:
    console.resize(800, 600)
    console.tabs.setCurrentWidget(console.security)
    table = child(tab, QAbstractItemView, "entries")
    qtbot.waitUntil(table.isVisible)
    qtbot.wait(50)
    row = table.fontMetrics().lineSpacing() + 6
    assert table.viewport().height() >= 5 * row, table.viewport().height()


def test_the_entries_tables_titles_read_whole_at_800x600(
    console: MainWindow, qtbot: QtBot, tab: SecurityTab
) -> None:
    console.resize(800, 600)
    console.tabs.setCurrentWidget(console.security)
    table = child(tab, QTableView, "entries")
    qtbot.waitUntil(table.isVisible)
    qtbot.wait(50)
    header = table.horizontalHeader()
    model = table.model()
    cut = []
    for column in range(header.count()):
        title = str(model.headerData(column, Qt.Orientation.Horizontal))
        if header.fontMetrics().horizontalAdvance(title) + 20 > header.sectionSize(column):
            cut.append((title, header.sectionSize(column)))
    assert cut == []
    assert header.length() <= table.viewport().width()  # and nothing off to the side


def test_the_add_forms_hints_read_whole_at_800x600(
    console: MainWindow, qtbot: QtBot, tab: SecurityTab
) -> None:
    console.resize(800, 600)
    console.tabs.setCurrentWidget(console.security)
    qtbot.waitUntil(tab.add_form.isVisible)
    qtbot.wait(50)
    cut = []
    for name in ("cidr", "description", "check_ip"):
        field = child(tab, QLineEdit, name)
        hint = field.placeholderText()
        if field.fontMetrics().horizontalAdvance(hint) + 10 > field.width():
            cut.append((name, hint, field.width()))
    assert cut == []


def test_the_playground_is_laid_out_at_its_split_once_when_first_shown(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page has its size and its split before its first layout: laid out at a default size or split
    first, every word-wrapped label on it is measured again at the final width (a slower launch)."""
    from app.bootstrap import Paths, make_session
    from app.ui.playground.options_split import OptionsSplit

    session = make_session(Paths.under(tmp_path), interactive=False)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    widths: list[int] = []
    resized = OptionsSplit.resizeEvent

    def record(split: OptionsSplit, event: QResizeEvent) -> None:
        widths.append(event.size().width())
        resized(split, event)

    monkeypatch.setattr(OptionsSplit, "resizeEvent", record)
    window.ensure_tabs()
    tab = window.playground
    side = max(120, min(220, tab.width() // 6))
    assert tab.splitter.sizes()[0] == side  # the list's share of the width, as before
    assert widths == [tab.conversation_splitter.width()]  # one layout, at the final width
    shutdown = asyncio.ensure_future(session.shutdown())
    qtbot.waitUntil(shutdown.done)


def test_a_playground_shown_with_no_size_given_first_is_split_at_its_show(
    console: MainWindow, qtbot: QtBot
) -> None:
    """A page shown on its own (as the benches do) takes its size as it is shown: split then, as before."""
    from app.ui.playground.tab import PlaygroundTab

    page = PlaygroundTab(console.session)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    assert page.splitter.sizes()[0] == max(120, min(220, page.width() // 6))
