"""Conversations last: saved as they happen, listed in the sidebar, reopened with their chain ids after a
restart, and a new turn in a reopened conversation chains on the server from the saved answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.playground.conversation_store import ConversationSummary
from app.ui.main_window import MainWindow
from app.ui.playground.conversations import ConversationSidebar
from tests.gui.reach import body_of
from tests.gui.test_playground import send, wait_done


def open_console(qtbot: QtBot, home: Path) -> MainWindow:
    from app.bootstrap import Paths, make_session
    from app.ui.main_window import MainWindow

    session = make_session(Paths.under(home), interactive=False)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    window.ensure_tabs()
    session.tasks.start("startup", session.activate())
    qtbot.waitUntil(lambda: session.state == "ok", timeout=10000)
    return window


def close_console(qtbot: QtBot, window: MainWindow) -> None:
    window.playground.conversations.close()
    closing = asyncio.ensure_future(window.session.shutdown())
    qtbot.waitUntil(closing.done, timeout=10000)


def click_row(qtbot: QtBot, sidebar: ConversationSidebar, row: int) -> None:
    rect = sidebar.list.visualRect(sidebar.model.index(row))
    qtbot.mouseClick(sidebar.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_conversation_is_saved_and_reopened_after_a_restart(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    send(qtbot, tab, "Tell me about tea")
    wait_done(qtbot, tab)
    send(qtbot, tab, "And coffee?")
    wait_done(qtbot, tab, 2)
    first_id = tab.service.turns[1].response_id
    assert first_id
    qtbot.waitUntil(lambda: [s.title for s in tab.sidebar.model.summaries] == ["Tell me about tea"])
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    tab = again.playground
    assert [s.title for s in tab.sidebar.model.summaries] == ["Tell me about tea"]
    assert len(tab.service.turns) == 2  # open again at launch; reopened from the sidebar too:
    qtbot.mouseClick(tab.sidebar.new_button, Qt.MouseButton.LeftButton)
    assert tab.service.turns == []
    click_row(qtbot, tab.sidebar, 0)
    qtbot.waitUntil(lambda: len(tab.views) == 2)
    assert [turn.prompt for turn in tab.service.turns] == ["Tell me about tea", "And coffee?"]
    assert tab.service.turns[1].text and tab.service.turns[1].response_id == first_id
    send(qtbot, tab, "Which has more caffeine?")  # chained on the server from the saved answer
    wait_done(qtbot, tab, 3)
    third = tab.service.turns[2]
    assert third.status == "completed", third.error
    assert body_of(third).get("previous_response_id") == first_id
    qtbot.waitUntil(lambda: tab.sidebar.model.summaries[0].turn_count == 3)
    close_console(qtbot, again)


def test_new_conversation_starts_empty_and_search_finds_old_ones(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    send(qtbot, tab, "Plan the office network")
    wait_done(qtbot, tab)
    qtbot.mouseClick(tab.sidebar.new_button, Qt.MouseButton.LeftButton)
    assert tab.service.turns == [] and tab.sidebar.current_id is None
    send(qtbot, tab, "Write a haiku")
    wait_done(qtbot, tab)
    qtbot.waitUntil(lambda: len(tab.sidebar.model.summaries) == 2)
    qtbot.keyClicks(tab.sidebar.search, "office")
    assert [s.title for s in tab.sidebar.model.summaries] == ["Plan the office network"]
    close_console(qtbot, window)


def test_the_model_name_is_never_cut_in_a_small_window(console: MainWindow, qtbot: QtBot) -> None:
    console.resize(800, 600)
    qtbot.waitUntil(lambda: console.playground.model.count() > 0)
    combo = console.playground.model
    longest = max((combo.itemText(i) for i in range(combo.count())), key=len)
    assert combo.width() >= combo.fontMetrics().horizontalAdvance(longest)


def test_the_first_turn_is_not_said_to_send_a_history(console: MainWindow, qtbot: QtBot) -> None:
    tab = console.playground
    send(qtbot, tab, "Hello")
    wait_done(qtbot, tab)
    send(qtbot, tab, "Again")
    wait_done(qtbot, tab, 2)
    assert "new conversation" in tab.views[0].prompt_label.text()
    assert "chained on the server" in tab.views[1].prompt_label.text()


def test_the_window_comes_back_as_it_was_left(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    window.resize(780, 560)  # inside the offscreen screen (800x600): Qt fits a restored window to its screen
    window.tabs.setCurrentWidget(window.security)
    tab = window.playground
    tab.model.setCurrentText("service-think")
    tab.web_search.click()
    left_at = window.size()
    window.close()  # as a person quits: the window saves what it looked like
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    qtbot.waitUntil(lambda: again.playground.model.currentText() == "service-think")
    assert again.tabs.currentWidget() is again.security
    assert again.playground.web_search.isChecked()
    assert again.size() == left_at
    close_console(qtbot, again)


def test_the_open_conversation_is_shown_again_after_a_restart(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    send(qtbot, tab, "Remember the fjord")
    wait_done(qtbot, tab)
    window.close()
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    shown = again.playground
    assert [turn.prompt for turn in shown.service.turns] == ["Remember the fjord"]
    assert "fjord" in shown.views[-1].answer.toPlainText()
    assert shown.sidebar.list.currentIndex().isValid()  # the sidebar marks it as the one open
    close_console(qtbot, again)


def test_reopening_a_conversation_goes_on_with_its_model(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    tab.model.setCurrentText("service-think")
    send(qtbot, tab, "Think about bridges")
    wait_done(qtbot, tab)
    qtbot.mouseClick(tab.sidebar.new_button, Qt.MouseButton.LeftButton)
    tab.model.setCurrentText("service-pro")
    send(qtbot, tab, "Plain talk")
    wait_done(qtbot, tab)
    qtbot.waitUntil(lambda: len(tab.sidebar.model.summaries) == 2)
    row = [s.title for s in tab.sidebar.model.summaries].index("Think about bridges")
    click_row(qtbot, tab.sidebar, row)
    qtbot.waitUntil(lambda: tab.model.currentText() == "service-think")
    close_console(qtbot, window)


def test_editing_an_earlier_message_drops_the_turns_after_it_from_the_file(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QInputDialog

    window = open_console(qtbot, tmp_path)
    tab = window.playground
    for number, prompt in enumerate(("One", "Two", "Three"), 1):
        send(qtbot, tab, prompt)
        wait_done(qtbot, tab, number)
    monkeypatch.setattr(QInputDialog, "getMultiLineText", lambda *args, **kwargs: ("Two, again", True))
    qtbot.mouseClick(tab.views[1].edit_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab, 2)
    qtbot.waitUntil(lambda: tab.service.turns[-1].status == "completed")
    assert tab.keeper.current_id is not None
    saved = tab.conversations.load(tab.keeper.current_id)
    assert saved is not None
    assert [turn.prompt for turn in saved.turns] == ["One", "Two, again"]
    assert tab.sidebar.model.summaries[0].turn_count == 2
    tab.sidebar.search.setText("Three")  # and search no longer finds what was dropped
    qtbot.waitUntil(lambda: tab.sidebar.model.summaries == [])
    close_console(qtbot, window)


def test_the_open_conversation_is_kept_without_a_clean_quit(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    send(qtbot, tab, "Remember the lighthouse")
    wait_done(qtbot, tab)
    close_console(qtbot, window)  # no window.close(): the console was ended without a quit

    again = open_console(qtbot, tmp_path)
    assert [turn.prompt for turn in again.playground.service.turns] == ["Remember the lighthouse"]
    close_console(qtbot, again)


def test_the_json_export_has_iso_times_and_the_settings_sent(
    console: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    import json
    import re

    from tests.gui.test_playground import send, wait_done

    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    tab.options_panel.instructions.setFocus()
    qtbot.keyClicks(tab.options_panel.instructions, "Answer in French.")
    send(qtbot, tab, "Hello")
    wait_done(qtbot, tab)
    qtbot.waitUntil(lambda: tab.keeper.current_id is not None)
    path = tmp_path / "conversation.json"
    assert tab.keeper.current_id is not None
    assert tab.conversations.export(tab.keeper.current_id, path)
    document = json.loads(path.read_text())
    iso = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
    assert iso.fullmatch(document["updated_at"]) and iso.fullmatch(document["turns"][0]["created_at"])
    assert document["settings"]["instructions"] == "Answer in French."


def test_editing_the_third_of_ten_messages_saves_only_what_changed(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turns before an edit are shown again, not finished again: before, each was saved again (a SQLite
    write on the GUI thread and a re-query of the sidebar) and an edit of the 3rd message wrote 3 times."""
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    for number in range(1, 11):
        send(qtbot, tab, f"message {number}")
        wait_done(qtbot, tab, number)
    qtbot.waitUntil(lambda: tab.sidebar.model.summaries[0].turn_count == 10)
    statements: list[str] = []
    tab.conversations.store._db.set_trace_callback(statements.append)  # SQLite's own record of what ran
    requeried: list[bool] = []
    tab.conversations.changed.connect(lambda: requeried.append(True))
    tab.conversations.saved.connect(lambda _id: requeried.append(True))
    monkeypatch.setattr(
        "PySide6.QtWidgets.QInputDialog.getMultiLineText", lambda *a, **k: ("message 3, edited", True)
    )
    qtbot.mouseClick(tab.views[2].edit_button, Qt.MouseButton.LeftButton)
    wait_done(qtbot, tab, 3)
    assert [t.prompt for t in tab.service.turns][2:] == ["message 3, edited"]
    qtbot.waitUntil(lambda: tab.sidebar.model.summaries[0].turn_count == 3)
    writes = [s for s in statements if s.split(None, 1)[0].upper() in ("INSERT", "UPDATE", "DELETE")]
    transactions = [s for s in statements if s.upper().startswith("BEGIN")]
    assert len(transactions) == 1 and len(requeried) == 1
    assert any("DELETE FROM turns" in s for s in writes)  # the turns after the edit are gone from the store
    tab.conversations.store._db.set_trace_callback(None)
    close_console(qtbot, window)


def test_a_saved_turn_updates_its_row_without_reading_the_list_again(
    console: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = console.playground
    send(qtbot, tab, "first conversation")
    wait_done(qtbot, tab)
    tab.keeper.new()
    listed: list[str] = []
    reading = tab.conversations.summaries

    def counted(query: str = "", *page: Any) -> list[ConversationSummary]:
        listed.append(query)
        return reading(query, *page)

    monkeypatch.setattr(tab.conversations, "summaries", counted)
    send(qtbot, tab, "second conversation")
    wait_done(qtbot, tab)
    send(qtbot, tab, "and a second turn")
    wait_done(qtbot, tab, 2)
    rows = tab.sidebar.model.summaries
    assert [row.title for row in rows] == ["second conversation", "first conversation"]
    assert rows[0].turn_count == 2 and rows[0].id == tab.keeper.current_id
    assert tab.sidebar.list.currentIndex().row() == 0  # the open one stays selected
    assert listed == []  # one row each time, not the whole list
    # A search shown is read again: the conversation may match it now.
    qtbot.keyClicks(tab.sidebar.search, "second")
    listed.clear()
    send(qtbot, tab, "a third turn")
    wait_done(qtbot, tab, 3)
    assert listed == ["second"] and [row.title for row in tab.sidebar.model.summaries] == [
        "second conversation"
    ]


def test_the_security_tab_is_built_when_first_shown(console: MainWindow, qtbot: QtBot) -> None:
    """A launch on the Playground does not wait for the Security tab's modules and widgets."""
    from app.ui.security.tab import SecurityTab

    assert console.tabs.currentIndex() == 0
    assert not isinstance(console.tabs.widget(1), SecurityTab)
    console.tabs.setCurrentIndex(1)  # as the tab bar or View > Security does
    security = console.tabs.currentWidget()
    assert isinstance(security, SecurityTab) and console.tabs.currentIndex() == 1
    assert console.security is security and console.tabs.tabText(1) == "&Security"
    qtbot.waitUntil(lambda: security.service.data is not None, timeout=10000)  # it reads the lists once built
