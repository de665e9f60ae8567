"""Another conversation opened while a turn still streams: the turn ends, stopped, in its own conversation's
file, and the conversation opened neither shows nor stores a word of it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.test_playground import send, wait_done
from tests.gui.test_playground_conversations import click_row

LONG = "Write 50000 words about the sea"


def streaming(qtbot: QtBot, tab: PlaygroundTab, index: int) -> None:
    qtbot.waitUntil(
        lambda: len(tab.service.turns) > index and len(tab.service.turns[index].text) > 200, timeout=10000
    )


def row_of(tab: PlaygroundTab, title: str) -> int:
    return [summary.title for summary in tab.sidebar.model.summaries].index(title)


def shown_text(tab: PlaygroundTab) -> str:
    return "\n".join(view.answer.toPlainText() for view in tab.views.built())


def test_a_turn_streaming_when_another_conversation_opens_is_saved_in_its_own(
    console: MainWindow, qtbot: QtBot
) -> None:
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    send(qtbot, tab, "Tell me about tea")
    wait_done(qtbot, tab)
    send(qtbot, tab, "And coffee?")
    wait_done(qtbot, tab, 2)
    tea = tab.keeper.current_id
    assert tea is not None
    before = tab.conversations.load(tea)
    assert before is not None
    qtbot.mouseClick(tab.sidebar.new_button, Qt.MouseButton.LeftButton)
    send(qtbot, tab, "Hello")
    wait_done(qtbot, tab)
    send(qtbot, tab, LONG)
    streaming(qtbot, tab, 1)
    sea = tab.keeper.current_id
    qtbot.waitUntil(lambda: len(tab.sidebar.model.summaries) == 2)

    click_row(qtbot, tab.sidebar, row_of(tab, "Tell me about tea"))
    qtbot.waitUntil(lambda: not tab.service.streaming and tab.keeper.current_id == tea)
    qtbot.wait(200)  # what the stopped stream's last steps would write or show

    assert [turn.prompt for turn in tab.service.turns] == ["Tell me about tea", "And coffee?"]
    assert "sea" not in shown_text(tab).lower() and LONG not in shown_text(tab)
    after = tab.conversations.load(tea)
    assert after is not None
    assert [(t.prompt, t.answer) for t in after.turns] == [(t.prompt, t.answer) for t in before.turns]
    assert sea is not None
    kept = tab.conversations.load(sea)
    assert kept is not None
    assert [turn.prompt for turn in kept.turns] == ["Hello", LONG]
    assert kept.turns[1].status == "stopped" and kept.turns[1].answer


def test_a_first_turn_streaming_when_another_conversation_opens_starts_its_own(
    console: MainWindow, qtbot: QtBot
) -> None:
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    send(qtbot, tab, "Tell me about tea")
    wait_done(qtbot, tab)
    tea = tab.keeper.current_id
    qtbot.mouseClick(tab.sidebar.new_button, Qt.MouseButton.LeftButton)
    send(qtbot, tab, LONG)
    streaming(qtbot, tab, 0)

    click_row(qtbot, tab.sidebar, row_of(tab, "Tell me about tea"))
    qtbot.waitUntil(lambda: not tab.service.streaming and tab.keeper.current_id == tea)
    qtbot.waitUntil(lambda: len(tab.sidebar.model.summaries) == 2)
    qtbot.wait(200)

    assert tab.keeper.current_id == tea  # the conversation opened stays open
    assert [turn.prompt for turn in tab.service.turns] == ["Tell me about tea"]
    assert "sea" not in shown_text(tab).lower()
    assert tea is not None
    opened = tab.conversations.load(tea)
    assert opened is not None and [turn.prompt for turn in opened.turns] == ["Tell me about tea"]
    others = [s for s in tab.sidebar.model.summaries if s.id != tea]
    assert len(others) == 1
    kept = tab.conversations.load(others[0].id)
    assert kept is not None and [turn.prompt for turn in kept.turns] == [LONG]
    assert kept.turns[0].status == "stopped"
