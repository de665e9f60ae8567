"""The conversations sidebar, driven as a person would: search, open, rename in place, delete with a question."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QMessageBox, QToolTip
from pytestqt.qtbot import QtBot

from app.core.playground.compare import compare_title
from app.core.playground.conversation_store import StoredTurn
from app.services.playground.conversations import ConversationsService
from app.services.session.messages import MessageBus
from app.ui.playground.conversations import PAGE, ConversationSidebar
from tests.gui.reach import hover_for_tooltip


@pytest.fixture
def service(tmp_path: Path) -> Iterator[ConversationsService]:
    service = ConversationsService(tmp_path, MessageBus())
    yield service
    service.close()


@pytest.fixture
def sidebar(service: ConversationsService, qtbot: QtBot) -> ConversationSidebar:
    for title, answer in (("Office network", "Use 203.0.113.0/24"), ("Haiku", "Autumn moonlight")):
        conversation_id = service.start(title, "service-pro")
        assert conversation_id
        service.save_turn(conversation_id, 0, StoredTurn("a question", answer, "service-pro", "completed"))
    sidebar = ConversationSidebar(service)
    qtbot.addWidget(sidebar)
    sidebar.resize(260, 400)
    sidebar.show()
    return sidebar


def titles(sidebar: ConversationSidebar) -> list[str]:
    return [summary.title for summary in sidebar.model.summaries]


def test_typing_in_search_narrows_the_list(sidebar: ConversationSidebar, qtbot: QtBot) -> None:
    assert sorted(titles(sidebar)) == ["Haiku", "Office network"]
    qtbot.keyClicks(sidebar.search, "autumn")
    assert titles(sidebar) == ["Haiku"]
    sidebar.search.clear()
    assert len(titles(sidebar)) == 2


def test_clicking_a_conversation_asks_to_open_it(sidebar: ConversationSidebar, qtbot: QtBot) -> None:
    row = titles(sidebar).index("Haiku")
    rect = sidebar.list.visualRect(sidebar.model.index(row))
    with qtbot.waitSignal(sidebar.open_requested) as opened:
        qtbot.mouseClick(sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert opened.args == [sidebar.model.summaries[row].id]


def test_f2_renames_in_place(
    sidebar: ConversationSidebar, service: ConversationsService, qtbot: QtBot
) -> None:
    row = titles(sidebar).index("Haiku")
    sidebar.list.setCurrentIndex(sidebar.model.index(row))
    sidebar.list.setFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_F2)
    editor = sidebar.list.findChild(QLineEdit)
    assert editor is not None
    editor.selectAll()
    qtbot.keyClicks(editor, "Autumn poems")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "Autumn poems" in titles(sidebar))
    assert [s.title for s in service.summaries("poems")] == ["Autumn poems"]


@pytest.mark.qt_log_ignore("^This plugin does not support raise")  # the tooltip's window, offscreen
def test_a_row_s_tooltip_has_its_whole_title_model_and_turns(
    sidebar: ConversationSidebar, qtbot: QtBot
) -> None:
    rect = sidebar.list.visualRect(sidebar.model.index(titles(sidebar).index("Office network")))
    hover_for_tooltip(sidebar.list.viewport(), rect.center())
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text().startswith("Office network\nservice-pro · 1 turn · ")
    QToolTip.hideText()


def test_a_re_run_shows_its_model_first_and_is_renamed_from_its_whole_title(
    sidebar: ConversationSidebar, service: ConversationsService, qtbot: QtBot
) -> None:
    title = compare_title("Haiku", "service-think")
    copy = service.start(title, "service-think")
    assert copy
    service.save_turn(copy, 0, StoredTurn("a question", "an answer", "service-think", "completed"))
    qtbot.waitUntil(lambda: title in titles(sidebar))
    row = titles(sidebar).index(title)
    assert sidebar.model.index(row).data() == "⇄ service-think: Haiku"  # what the list shows
    sidebar.list.setCurrentIndex(sidebar.model.index(row))
    sidebar.list.setFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_F2)
    editor = sidebar.list.findChild(QLineEdit)
    assert editor is not None and editor.text() == title  # the title itself, not its shown form
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # unchanged: nothing is renamed
    assert titles(sidebar).count(title) == 1 and [s.title for s in service.summaries("⇄")] == []


def test_scrolling_to_the_end_reads_the_next_page_until_every_conversation_is_listed(
    service: ConversationsService, qtbot: QtBot
) -> None:
    """A long history is read a page at a time (PAGE rows, then more as the list is scrolled to its end):
    every conversation can be reached, none twice (all were read at once before, and only the newest 500)."""
    for n in range(2 * PAGE + 30):
        service.start(f"Conversation {n}", "service-pro")
    sidebar = ConversationSidebar(service)
    qtbot.addWidget(sidebar)
    sidebar.resize(260, 400)
    sidebar.show()
    assert len(titles(sidebar)) == PAGE  # what a launch reads
    bar = sidebar.list.verticalScrollBar()
    for _ in range(10):
        bar.setValue(bar.maximum())
        qtbot.wait(10)
    listed = titles(sidebar)
    assert len(listed) == 2 * PAGE + 30 and len(set(listed)) == len(listed)
    assert listed[0] == f"Conversation {2 * PAGE + 29}"  # the newest first
    assert sidebar.model.rowCount() == len(listed)


def test_delete_asks_first_and_cancel_keeps_it(sidebar: ConversationSidebar, qtbot: QtBot) -> None:
    row = titles(sidebar).index("Office network")
    sidebar.list.setCurrentIndex(sidebar.model.index(row))
    sidebar.list.setFocus()
    qtbot.keyClick(sidebar.list, Qt.Key.Key_Delete)
    box = sidebar.findChild(QMessageBox)
    assert box is not None and "Office network" in box.text()
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Cancel), Qt.MouseButton.LeftButton)
    assert "Office network" in titles(sidebar)

    qtbot.keyClick(sidebar.list, Qt.Key.Key_Delete)
    box = next(b for b in sidebar.findChildren(QMessageBox) if b.isVisible())
    delete = next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.DestructiveRole)
    qtbot.mouseClick(delete, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: titles(sidebar) == ["Haiku"])


def test_export_writes_markdown_and_json(service: ConversationsService, tmp_path: Path) -> None:
    conversation_id = service.start("Export", "service-pro")
    assert conversation_id
    service.save_turn(conversation_id, 0, StoredTurn("hi", "hello", "service-pro", "completed"))
    assert service.export(conversation_id, tmp_path / "c.md")
    assert (tmp_path / "c.md").read_text().startswith("# Export")
    assert service.export(conversation_id, tmp_path / "c.json")
    assert '"title": "Export"' in (tmp_path / "c.json").read_text()
    assert not service.export(conversation_id, tmp_path / "missing-folder" / "c.md")  # said on the bus


def test_no_file_until_the_first_save(tmp_path: Path, qtbot: QtBot) -> None:
    """A first launch lists no conversations without making the file (its making syncs to disk several
    times); the first save makes it, and the list shows what was saved."""
    service = ConversationsService(tmp_path, MessageBus())
    sidebar = ConversationSidebar(service)
    qtbot.addWidget(sidebar)
    sidebar.show()
    try:
        assert titles(sidebar) == [] and service.summaries("anything") == []
        assert not service.path.exists()
        assert service.start("First", "service-pro")
        assert service.path.exists()
        qtbot.waitUntil(lambda: titles(sidebar) == ["First"])
    finally:
        service.close()
