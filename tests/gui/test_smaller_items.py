"""Issue 24's smaller items: Enter in the description adds (once), and the schema's messages are sentences."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QInputDialog, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.core.playground.schema_check import check_schema
from app.netrules import parse_address
from app.ui.main_window import MainWindow
from app.ui.security.add_form import DESCRIPTION_LIMIT
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child, shown
from tests.gui.test_playground import send, wait_done
from tests.gui.test_security import add


def test_enter_in_either_field_adds_once(qtbot: QtBot, tab: SecurityTab) -> None:
    form = tab.add_form
    for field, cidr in ((form.description, "203.0.113.0/24"), (form.cidr, "198.51.100.0/24")):
        count = len(tab.service.entries)
        form.cidr.clear()
        qtbot.keyClicks(form.cidr, cidr)
        qtbot.keyClicks(form.description, "office")
        field.setFocus()
        qtbot.keyClick(field, Qt.Key.Key_Return)
        expected = count + 1
        qtbot.waitUntil(lambda: len(tab.service.entries) == expected)  # noqa: B023
        qtbot.wait(200)
        assert len(tab.service.entries) == count + 1  # not twice


def test_the_schema_messages_end_with_a_full_stop() -> None:
    for text in ("{oops", '{"type": 5}'):
        assert check_schema(text).message.endswith(".")


def test_after_add_the_focus_stays_in_the_address_field(qtbot: QtBot, tab: SecurityTab) -> None:
    form = tab.add_form
    count = len(tab.service.entries)
    qtbot.keyClicks(form.cidr, "203.0.113.0/24")
    qtbot.waitUntil(form.add_button.isEnabled)
    form.add_button.setFocus(Qt.FocusReason.TabFocusReason)  # Tab to Add, then Space, as from the keyboard
    qtbot.keyClick(form.add_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: len(tab.service.entries) == count + 1)
    qtbot.wait(50)
    assert QApplication.focusWidget() is form.cidr  # not Check an IP, where the next address would go


def test_a_description_past_the_limit_is_said_so(qtbot: QtBot, tab: SecurityTab) -> None:
    form = tab.add_form
    form.description.setFocus()
    QApplication.clipboard().setText("x" * 250)
    qtbot.keyClick(form.description, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert len(form.description.text()) == DESCRIPTION_LIMIT
    qtbot.waitUntil(form.description_note.isVisible)
    assert f"at most {DESCRIPTION_LIMIT} characters" in form.description_note.text()
    qtbot.keyClick(form.description, Qt.Key.Key_Backspace)  # under the limit again: the note goes
    assert not form.description_note.isVisible()


def test_after_a_probe_the_focus_goes_on_to_the_next_step_not_to_cancel(
    qtbot: QtBot, console: MainWindow
) -> None:
    from tests.gui.reach import plan_of
    from tests.gui.test_security import click_switch
    from tests.gui.test_security_rotation import play, start_rotation

    console.tabs.setCurrentWidget(console.security)
    security = console.security
    play(qtbot, console, "198.51.100.7")
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).source_ip == "198.51.100.7")
    add(qtbot, security, "198.51.100.0/24", "old office")
    click_switch(qtbot, security)
    qtbot.waitUntil(lambda: shown(security).enabled is True)
    dialog = start_rotation(qtbot, security)
    play(qtbot, console, "203.0.113.40")
    dialog.activateWindow()
    dialog.probe_button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(dialog.probe_button.hasFocus)
    qtbot.keyClick(dialog.probe_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: plan_of(security).step == "confirmed")
    qtbot.waitUntil(lambda: dialog.remove_button.hasFocus())
    assert not dialog.cancel_button.hasFocus()


def test_edit_says_the_later_turns_go_and_cancel_keeps_them(
    qtbot: QtBot, console: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = console.playground
    for number, prompt in enumerate(("One", "Two", "Three"), 1):
        send(qtbot, tab, prompt)
        wait_done(qtbot, tab, number)
    asked: list[str] = []

    def cancel(_parent: QWidget, _title: str, label: str, _text: str) -> tuple[str, bool]:
        asked.append(label)
        return "One, again", False

    monkeypatch.setattr(QInputDialog, "getMultiLineText", cancel)
    qtbot.mouseClick(tab.views[0].edit_button, Qt.MouseButton.LeftButton)
    assert "the 2 later turns" in asked[0] and "dropped" in asked[0]
    assert [turn.prompt for turn in tab.service.turns] == ["One", "Two", "Three"]  # Cancel kept them
    qtbot.mouseClick(tab.views[2].edit_button, Qt.MouseButton.LeftButton)
    assert "dropped" not in asked[1]  # the last turn: nothing to lose


def test_an_image_error_goes_with_the_conversation_it_was_in(
    qtbot: QtBot, console: MainWindow, tmp_path: Path
) -> None:
    tab = console.playground
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not an image")
    tab.attach_file(broken)
    assert "broken.png" in tab.image_notice.text()
    qtbot.mouseClick(child(tab, QPushButton, "new_conversation"), Qt.MouseButton.LeftButton)
    assert tab.image_notice.text() == ""


def test_check_an_ip_is_answered_again_for_the_scope_chosen(qtbot: QtBot, tab: SecurityTab) -> None:
    qtbot.keyClicks(tab.check.input, "203.0.113.9")
    assert "Project:" not in tab.check.result.text()  # the organization's list alone
    tab.scope_bar.scope.setCurrentIndex(1)
    tab.scope_bar.scope.activated.emit(1)
    qtbot.waitUntil(lambda: tab.service.data is not None and shown(tab).scope == "project")
    qtbot.waitUntil(lambda: "Project:" in tab.check.result.text())  # the same address, both lists now
    add(qtbot, tab, "203.0.113.0/24")  # and again when the list it is checked against changes
    qtbot.waitUntil(lambda: "Project: list off" in tab.check.result.text())


def test_add_my_ip_on_the_sandbox_gives_no_never_seen_warning(qtbot: QtBot, console: MainWindow) -> None:
    """The sandbox sees the console at loopback: the entry that holds it is not one the service never sees."""
    console.tabs.setCurrentWidget(console.security)
    tab = console.security  # no simulated IP played: the sandbox sees the console at loopback
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.source_ip is not None)
    source_ip = tab.service.source_ip
    assert source_ip is not None and parse_address(source_ip).is_loopback
    qtbot.mouseClick(child(tab, QPushButton, "add_mine"), Qt.MouseButton.LeftButton)
    assert tab.add_form.cidr.text() == source_ip
    verdict = tab.add_form.verdict.text()
    assert verdict.startswith("✓") and "never sees" not in verdict
    tab.add_form.cidr.setText("127.0.0.0/8")  # a range holding it: the same
    assert "never sees" not in tab.add_form.verdict.text()
    tab.add_form.cidr.setText("::1")  # loopback the service does not see this console at: warned
    assert "never sees" in tab.add_form.verdict.text()


def test_a_compare_copy_reads_as_one_in_the_sidebar() -> None:
    """At the sidebar's width the start of a title shows: a re-run starts with its mark and its model."""
    from app.core.playground.compare import compare_title
    from app.models.conversations import shown_title

    copy = compare_title("My name is Ada and I like long titles", "service-think")
    assert shown_title(copy) == "⇄ service-think: My name is Ada and I like long titles"
    assert shown_title("My name is Ada") == "My name is Ada"


def test_the_engine_caption_follows_the_choice_and_is_shown_whole(console: MainWindow, qtbot: QtBot) -> None:
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    qtbot.waitUntil(dialog.isVisible)
    caption = dialog.engine_status
    assert (
        caption.text().startswith("Now answering: the simulated model") and "After Save" not in caption.text()
    )
    dialog.engine.setCurrentIndex(dialog.engine.findData("local"))
    assert "After Save: Local model" in caption.text()  # not the engine that answered before
    assert "Now answering: the simulated model" in caption.text()
    qtbot.wait(50)  # laid out with its second line
    assert caption.height() >= caption.heightForWidth(caption.width())  # every line in view
    dialog.engine.setCurrentIndex(dialog.engine.findData("simulated"))
    assert "After Save" not in caption.text()
    dialog.reject()
