"""Issue 38: a conversation's chain belongs to the server (profile) its responses came from. After switching
profile with a conversation open, the next turn and Get code send the whole history, never a
`previous_response_id` the other server never made."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from app.core.profile import Profile
from app.ui.main_window import MainWindow
from tests.conftest import Sandbox
from tests.gui.reach import body_of
from tests.gui.test_playground import send, wait_done


def choose_profile(qtbot: QtBot, console: MainWindow, name: str) -> None:
    """Pick a profile in the toolbar's box, as a person does, and wait for its client."""
    box = console.profile_box
    box.setFocus()
    index = box.findText(name)
    assert index >= 0, name
    while box.currentIndex() != index:  # the arrow keys walk the list; each choice is activated
        key = Qt.Key.Key_Down if box.currentIndex() < index else Qt.Key.Key_Up
        qtbot.keyClick(box, key)
    session = console.session
    qtbot.waitUntil(
        lambda: session.profile is not None and session.profile.name == name and session.client is not None
    )


def test_a_switch_of_profile_sends_the_whole_history_not_the_other_server_s_chain(
    qtbot: QtBot, console: MainWindow, sandbox: Sandbox
) -> None:
    session = console.session
    other = Profile(id="p-other", name="Other server", base_url=sandbox.url, org_id=sandbox.creds.org_id)
    session.profiles.save(other)
    session.secrets.set(other.id, "api_key", sandbox.creds.api_key)
    tab = console.playground
    console.tabs.setCurrentWidget(tab)
    send(qtbot, tab, "My name is Ada")
    wait_done(qtbot, tab)
    first = tab.service.turns[0]
    assert first.response_id and first.status == "completed"

    choose_profile(qtbot, console, "Other server")
    tab.message.setFocus()
    qtbot.keyClicks(tab.message, "What is my name?")
    code = tab.code_snippets()
    assert first.response_id not in code["Python"] and "previous_response_id" not in code["curl"]
    tab.message.clear()
    send(qtbot, tab, "What is my name?")
    wait_done(qtbot, tab, 2)
    second = tab.service.turns[1]
    assert second.status == "completed", second.error
    assert "previous_response_id" not in body_of(second) and len(body_of(second)["input"]) == 3
    note = tab.views[1].findChild(QLabel, "chain_note")
    assert note is not None and note.isVisibleTo(tab) and "another server" in note.text()

    send(qtbot, tab, "And now?")  # on the new server, the chain goes on from its own answer
    wait_done(qtbot, tab, 3)
    assert body_of(tab.service.turns[2])["previous_response_id"] == second.response_id

    choose_profile(qtbot, console, "Local sandbox")  # back: the last answer is the other server's
    send(qtbot, tab, "Still there?")
    wait_done(qtbot, tab, 4)
    fourth = tab.service.turns[3]
    assert fourth.status == "completed" and "previous_response_id" not in body_of(fourth)


def test_a_saved_turn_keeps_the_server_its_chain_lives_on() -> None:
    from app.api.wire import Response
    from app.core.playground.turns import RequestOptions, Turn, TurnStatus, build_request
    from app.services.playground.conversations import restored_turn, stored_turn

    turn = Turn("hi", [], "service-pro", True, status=TurnStatus.COMPLETED, text="Hello", server="p-a")
    turn.response = Response(id="resp_1", status="completed", model="service-pro")
    reopened = restored_turn(stored_turn(turn))
    assert reopened.server == "p-a"
    same = build_request([reopened], "again", [], RequestOptions("service-pro"), "p-a")
    assert same.body.get("previous_response_id") == "resp_1"
    other = build_request([reopened], "again", [], RequestOptions("service-pro"), "p-b")
    assert "previous_response_id" not in other.body and "another server" in other.chain_note
