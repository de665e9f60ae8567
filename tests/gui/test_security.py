"""The Security tab as an admin uses it, against the embedded sandbox, playing several source IPs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.models.entries import COVERS
from app.sandbox.store.database import run_blocking
from app.ui.main_window import MainWindow, NoticeBar
from app.ui.security.rotation import RotationDialog
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child, client_of, dialog_of, embedded, profile_of, shown


def add(qtbot: QtBot, tab: SecurityTab, cidr: str, description: str = "") -> None:
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, cidr)
    qtbot.keyClicks(tab.add_form.description, description)
    count = len(tab.service.entries)
    qtbot.mouseClick(tab.add_form.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == count + 1)


def typed(monkeypatch: pytest.MonkeyPatch, word: str | None) -> list[str]:
    asked: list[str] = []

    def answer(_parent: object, _title: str, label: str, *args: object, **kwargs: object) -> tuple[str, bool]:
        asked.append(label)
        return (word or "", word is not None)

    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", answer)
    return asked


def test_shows_your_ip_and_adds_it(qtbot: QtBot, tab: SecurityTab) -> None:
    assert "198.51.100.7" in tab.your_ip.my_ip.text()
    qtbot.mouseClick(tab.findChild(QPushButton, "add_mine"), Qt.MouseButton.LeftButton)
    assert tab.add_form.cidr.text() == "198.51.100.7" and tab.add_form.add_button.isEnabled()
    qtbot.keyClicks(tab.add_form.description, "office")
    qtbot.mouseClick(tab.add_form.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == 1)
    assert tab.model.rowCount() == 1
    assert tab.model.data(tab.model.index(0, 0)) == "198.51.100.7/32"
    assert tab.model.data(tab.model.index(0, COVERS)) == "✓ you"


def test_live_validation_names_the_fault_and_offers_fixes(qtbot: QtBot, tab: SecurityTab) -> None:
    qtbot.keyClicks(tab.add_form.cidr, "192.168.1.5/24")
    assert "host bits" in tab.add_form.verdict.text() and not tab.add_form.add_button.isEnabled()
    qtbot.mouseClick(tab.findChild(QPushButton, "use_192.168.1.0/24"), Qt.MouseButton.LeftButton)
    assert tab.add_form.cidr.text() == "192.168.1.0/24"
    assert "private range" in tab.add_form.verdict.text() and tab.add_form.add_button.isEnabled()
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, "010.0.0.1")
    assert "leading zero" in tab.add_form.verdict.text()


def test_duplicates_and_overlaps_are_shown_before_sending(qtbot: QtBot, tab: SecurityTab) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, "198.51.100.0/24")
    assert "Duplicate" in tab.add_form.verdict.text() and not tab.add_form.add_button.isEnabled()
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, "198.51.100.8/29")
    assert "already covered" in tab.add_form.verdict.text()


def test_whole_space_needs_a_typed_confirmation(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    typed(monkeypatch, "no")
    qtbot.keyClicks(tab.add_form.cidr, "0.0.0.0/0")
    qtbot.mouseClick(tab.add_form.add_button, Qt.MouseButton.LeftButton)
    assert tab.service.entries == ()
    assert tab.add_form.cidr.text() == "0.0.0.0/0"  # refused: nothing sent, nothing lost
    typed(monkeypatch, "ALLOW ALL")
    qtbot.mouseClick(tab.add_form.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == 1)


def click_switch(qtbot: QtBot, tab: SecurityTab) -> None:
    qtbot.mouseClick(
        tab.scope_bar.switch, Qt.MouseButton.LeftButton, pos=QPoint(6, tab.scope_bar.switch.height() // 2)
    )


def test_switching_on_without_cover_is_stopped_then_typed(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, "203.0.113.0/24")
    asked = typed(monkeypatch, None)  # the person cancels
    click_switch(qtbot, tab)
    assert asked and "locked out" in asked[0] and not tab.scope_bar.switch.isChecked()
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    assert tab.scope_bar.switch.isChecked()


def test_removing_your_cover_is_stopped_and_forced_only_when_typed(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, "198.51.100.0/24", "mine")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    tab.entries.table.selectRow(0)
    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.question", lambda *a, **k: QMessageBox.StandardButton.Yes
    )
    typed(monkeypatch, None)
    qtbot.mouseClick(tab.findChild(QPushButton, "remove"), Qt.MouseButton.LeftButton)
    assert len(tab.service.entries) == 1
    typed(monkeypatch, "LOCK ME OUT")
    qtbot.mouseClick(tab.findChild(QPushButton, "remove"), Qt.MouseButton.LeftButton)
    store = embedded(tab.session).store
    qtbot.waitUntil(
        lambda: store.allowlists.get("organization", profile_of(tab.session).org_id).entries == ()
    )
    # Now locked out, as the person chose: the next read is refused, the tab says so in its banner and names
    # the address the service saw, and the recovery panel (on screen) says how to recover.
    tab.service.refresh()
    banner = tab.blocked_banner
    qtbot.waitUntil(lambda: banner.isVisible() and "blocked by the IP allowlist" in banner.label.text())
    assert "198.51.100.7" in banner.label.text()
    command = tab.recovery.command
    assert command.isVisible() and "sandbox allowlist disable --data" in command.text()
    assert str(tab.session.sandbox.data_dir) in command.text()


def test_check_an_ip_names_the_entry_or_the_nearest(qtbot: QtBot, tab: SecurityTab) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    qtbot.keyClicks(tab.check.input, "198.51.100.9")
    assert "allowed by 198.51.100.0/24" in tab.check.result.text() and "ALLOWED" in tab.check.result.text()
    tab.check.input.clear()
    qtbot.keyClicks(tab.check.input, "198.51.101.1")
    assert (
        "nearest entry: 198.51.100.0/24" in tab.check.result.text() and "BLOCKED" in tab.check.result.text()
    )


def test_project_scope_shows_the_effective_rule(qtbot: QtBot, tab: SecurityTab) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    tab.scope_bar.scope.setCurrentIndex(1)
    tab.scope_bar.scope.activated.emit(1)
    qtbot.waitUntil(lambda: tab.service.data is not None and shown(tab).scope == "project")
    add(qtbot, tab, "203.0.113.0/24")
    # The rule follows the list's index, built on a worker thread (a loaded machine may take a moment).
    qtbot.waitUntil(lambda: "never admits: 203.0.113.0/24" in tab.scope_bar.rule.text())
    assert "AND" in tab.scope_bar.rule.text()
    # Check an IP names the list that refuses: the organization's, whatever the project's (off) says.
    qtbot.keyClicks(tab.check.input, "203.0.113.9")
    qtbot.waitUntil(lambda: "Organization: blocked" in tab.check.result.text())
    result = tab.check.result.text()
    assert "Organization: blocked" in result and "Project: list off, allowed." in result
    assert "BLOCKED by the organization's list" in result


def test_a_read_answered_before_an_add_does_not_hide_the_added_entry(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read (the periodic one, or the one after a change) whose answer arrives after an add's was answered
    before the add: the list it holds lacks the new entry, and the tab keeps the add's answer."""
    lists = client_of(tab.service.session).allowlists
    read_for_real, release, answered, arrived = lists.get, asyncio.Event(), [], []

    async def late(*args: Any, **kwargs: Any) -> Any:
        answer = await read_for_real(*args, **kwargs)  # answered by the sandbox now, before the add
        answered.append(answer)
        await release.wait()
        arrived.append(answer)
        return answer

    monkeypatch.setattr(lists, "get", late)
    tab.service.refresh()
    qtbot.waitUntil(lambda: len(answered) == 1)
    monkeypatch.setattr(lists, "get", read_for_real)
    add(qtbot, tab, "203.0.113.0/24")
    release.set()
    qtbot.waitUntil(lambda: len(arrived) == 1)
    qtbot.wait(50)
    assert [entry.cidr for entry in tab.service.entries] == ["203.0.113.0/24"]
    assert tab.model.rowCount() == 1


def test_filter_and_sort(qtbot: QtBot, tab: SecurityTab) -> None:
    for cidr, description in (
        ("203.0.113.0/24", "branch"),
        ("198.51.100.0/24", "office"),
        ("2001:db8::/48", "v6"),
    ):
        add(qtbot, tab, cidr, description)
    qtbot.keyClicks(tab.entries.filter, "off")
    assert tab.model.rowCount() == 1
    tab.entries.filter.clear()
    tab.entries.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    shown = [tab.model.data(tab.model.index(row, 0)) for row in range(tab.model.rowCount())]
    assert shown == ["198.51.100.0/24", "203.0.113.0/24", "2001:db8::/48"]


def test_a_change_made_elsewhere_is_shown_and_applied_again(qtbot: QtBot, tab: SecurityTab) -> None:
    """Two admins: the console sends the version it read (If-Match); the service refuses a change to a list
    that changed since (412); the console shows what changed under you, and applies the change again."""
    add(qtbot, tab, "198.51.100.0/24")
    other = embedded(tab.session).store  # a second admin, through the dashboard
    run_blocking(
        other.allowlists.add_entry(
            "organization", profile_of(tab.session).org_id, "192.0.2.0/24", "someone else"
        )
    )
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, "203.0.113.0/24")
    qtbot.mouseClick(tab.add_form.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.findChild(QMessageBox, "changed_under_you") is not None, timeout=10000)
    box = child(tab, QMessageBox, "changed_under_you")
    assert "+ added 192.0.2.0/24 “someone else”" in box.informativeText() and "203.0.113.0/24" in box.text()
    assert "192.0.2.0/24" in [e.cidr for e in tab.service.entries]  # the list as it now stands
    qtbot.mouseClick(child(box, QPushButton, "apply_again"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "203.0.113.0/24" in [e.cidr for e in tab.service.entries], timeout=10000)
    cidrs = [e.cidr for e in tab.service.entries]
    assert sorted(cidrs) == ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"]
    results = [(r.action, r.result) for r in tab.history.records()[-2:]]
    assert results == [("add", "not sent: another admin had changed the list"), ("add", "ok")]


def test_without_admin_key_the_tab_says_what_it_needs(qtbot: QtBot, console: MainWindow) -> None:
    session = console.session
    client_of(session).transport.settings.admin_key = None
    session.client_changed.emit()
    assert "needs an admin key" in console.security.need.text()
    assert console.security.need.isVisibleTo(console.security)


def test_refreshes_every_so_often_only_while_shown(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab
) -> None:
    assert tab.service.periodic.isActive()
    console.tabs.setCurrentWidget(console.playground)
    assert not tab.service.periodic.isActive()
    console.tabs.setCurrentWidget(tab)
    assert tab.service.periodic.isActive()
    console.close()
    assert not tab.service.periodic.isActive()


def test_markup_from_the_network_is_shown_as_text(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 12: descriptions, addresses and messages from the server never become markup in the tab."""
    add(qtbot, tab, "198.51.100.0/24", "<b>x</b>")
    add(qtbot, tab, "203.0.113.0/24", "<img src=x>")
    shown = [tab.model.data(tab.model.index(row, 1)) for row in range(tab.model.rowCount())]
    assert sorted(shown) == ["<b>x</b>", "<img src=x>"]  # the table shows the text as typed
    tab.entries.table.selectRow(0)
    qtbot.mouseClick(tab.findChild(QPushButton, "rotate"), Qt.MouseButton.LeftButton)
    dialog = dialog_of(tab, "rotation", RotationDialog)
    assert "<b>x</b>" in dialog.old.currentText() or "<img src=x>" in dialog.old.currentText()
    dialog.close()
    # Every label that can quote the server shows plain text, whatever it is given.
    for name in ("verdict", "check_result", "rule", "need", "rotation_banner", "guidance"):
        assert child(tab, QLabel, name).textFormat() == Qt.TextFormat.PlainText, name
    notice = child(tab.window(), QLabel, "notice_text")
    bar = notice.parent()
    assert isinstance(bar, NoticeBar)
    bar.show_text("<img src=x> refused")  # a notice quoting a server
    assert notice.textFormat() == Qt.TextFormat.PlainText
    # The one rich label, your IP, escapes what the server said it saw.
    tab.your_ip.show_source_ip("<img src=x>")
    assert "&lt;img src=x&gt;" in tab.your_ip.my_ip.text() and "<img" not in tab.your_ip.my_ip.text()
    tab.your_ip.show_public_ip(
        "Public echo services see: IPv4 <b>192.0.2.1</b>.", "<b>y</b>", {4: "192.0.2.1"}
    )
    assert "&lt;b&gt;y&lt;/b&gt;" in tab.your_ip.public_ip_label.text()


def test_an_add_on_a_project_list_shows_the_posts_answer_without_reading_the_lists_again(
    qtbot: QtBot, tab: SecurityTab
) -> None:
    """Counted by the sandbox itself (the requests its gateway saw): the POST alone, sent with the list's
    version (If-Match) and answered with the new entry. A read before it and both lists after it made four."""
    tab.scope_bar.scope.setCurrentIndex(1)
    tab.scope_bar.scope.activated.emit(1)
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.scope == "project")
    seen = embedded(tab.session).app.seen
    before = len(seen)
    add(qtbot, tab, "203.0.113.0/24", "branch")
    qtbot.waitUntil(lambda: not tab.session.tasks.running("allowlist.add"))  # a read after it, sent by now
    project_list = (
        f"/v1/organizations/{profile_of(tab.session).org_id}/projects/{tab.service.project_id}/ip_allowlist"
    )
    # No read before it either: the POST carries the version the list was read at (If-Match).
    assert list(seen)[before:] == [("POST", project_list + "/entries")]
    listed = shown(tab).entries
    assert [(e.cidr, e.description) for e in listed] == [("203.0.113.0/24", "branch")]
    assert tab.model.rowCount() == 1 and tab.model.data(tab.model.index(0, 0)) == "203.0.113.0/24"


def test_switching_the_list_on_shows_the_patchs_answer_without_reading_it_again(
    qtbot: QtBot, tab: SecurityTab
) -> None:
    """The answer to the switch is the list as it is now: the PATCH alone. (A read after it was admitted by
    the entry that covers this console, and showed it matched just then, not as the switch found it.)"""
    add(qtbot, tab, "198.51.100.0/24", "office")
    qtbot.waitUntil(lambda: not tab.session.tasks.running("allowlist.add"))
    seen = embedded(tab.session).app.seen
    before = len(seen)
    tab.service.set_enabled(True)
    qtbot.waitUntil(lambda: not tab.session.tasks.running("allowlist.enable"))
    org_list = f"/v1/organizations/{profile_of(tab.session).org_id}/ip_allowlist"
    assert list(seen)[before:] == [("PATCH", org_list)]
    assert shown(tab).enabled


def test_check_an_ip_refuses_by_an_entry_that_expired(qtbot: QtBot, tab: SecurityTab) -> None:
    """Issue 38: the gateway stops admitting by an entry at its expiry, and so does Check an IP."""
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    org = profile_of(tab.session).org_id
    store = embedded(tab.session).store  # an entry that expired a second ago (the API takes only future ones)
    past = int(store.clock()) - 1
    run_blocking(store.allowlists.add_entry("organization", org, "203.0.113.23/32", expires_at=past))
    tab.service.refresh()
    qtbot.waitUntil(lambda: any(entry.cidr == "203.0.113.23/32" for entry in tab.service.entries))
    qtbot.keyClicks(tab.check.input, "203.0.113.23")
    qtbot.waitUntil(lambda: "Together" in tab.check.result.text())
    result = tab.check.result.text()
    assert "Organization: blocked" in result and "203.0.113.23/32 expired" in result
    assert "BLOCKED" in result and "ALLOWED" not in result
