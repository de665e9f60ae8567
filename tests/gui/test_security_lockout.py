"""After a lockout the Security tab shows what the service says, and that the admin key is blocked, until the
list is recovered from the dashboard (the sandbox's command line; here its store, as that command does)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.database import run_blocking
from app.services.security import reads
from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.reach import child, embedded, profile_of, shown
from tests.gui.test_security import add, typed


def click(qtbot: QtBot, widget: QWidget) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton)


def click_switch(qtbot: QtBot, tab: SecurityTab) -> None:
    switch = tab.scope_bar.switch
    qtbot.mouseClick(switch, Qt.MouseButton.LeftButton, pos=QPoint(6, switch.height() // 2))


def org_list(tab: SecurityTab) -> AllowlistRecord:
    return embedded(tab.session).store.allowlists.get("organization", profile_of(tab.session).org_id)


def lock_out_by_switching_on(qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13's reproduction: the organization's list off and empty, tick "Allowlist on", type LOCK ME OUT."""
    assert not shown(tab).enabled and tab.service.entries == ()
    asked = typed(monkeypatch, "LOCK ME OUT")
    click_switch(qtbot, tab)
    assert asked and "empty" in asked[0]
    qtbot.waitUntil(lambda: org_list(tab).enabled)


def test_after_locking_yourself_out_the_tab_shows_the_list_on_and_the_key_blocked(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock_out_by_switching_on(qtbot, tab, monkeypatch)
    banner = tab.blocked_banner
    qtbot.waitUntil(banner.isVisible)
    # What the service says: the list is on (its answer to the switch), though it can no longer be read.
    assert tab.scope_bar.switch.isChecked() and shown(tab).enabled
    assert "198.51.100.7" in banner.label.text() and "blocked" in banner.label.text()
    recovery = tab.recovery
    assert recovery.isVisible() and banner.isAncestorOf(recovery)
    assert "sandbox allowlist disable --data" in recovery.command.text()
    # The toolbar follows without anyone pressing Check.
    qtbot.waitUntil(lambda: console.indicator.text() == "● Blocked: admin key (403)")
    assert "198.51.100.7" in console.indicator.toolTip()


def test_every_refused_read_keeps_the_block_in_view_and_refresh_reads_again(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, "198.51.100.0/24", "mine")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    # Removing the entry that covers you: one dialog, the typed one (no Yes/No before it).
    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.question",
        lambda *a, **k: (_ for _ in ()).throw(AssertionError("a second dialog")),
    )
    asked = typed(monkeypatch, "LOCK ME OUT")
    tab.entries.table.selectRow(0)
    click(qtbot, child(tab, QPushButton, "remove"))
    assert len(asked) == 1 and "198.51.100.0/24" in asked[0]
    banner = tab.blocked_banner
    qtbot.waitUntil(banner.isVisible)
    assert tab.service.entries == () and tab.scope_bar.switch.isChecked()
    assert tab.model.rowCount() == 0  # the entry the service removed is gone from the table
    assert not console.notice.isVisible()  # the banner says it, in the tab it concerns
    # A change tried while blocked is refused at its first read: still blocked, nothing claimed.
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, "203.0.113.0/24")
    click(qtbot, tab.add_form.add_button)
    qtbot.waitUntil(lambda: not tab.session.tasks.running("allowlist.add"))
    assert banner.isVisible() and tab.scope_bar.switch.isChecked()
    # The periodic re-read is refused too: the block stays in view.
    tab.service.periodic.timeout.emit()
    qtbot.waitUntil(lambda: not tab.session.tasks.running("allowlist.refresh"))
    assert banner.isVisible()
    # Recovery from the dashboard: someone adds the address there; Refresh reads the list again.
    run_blocking(
        embedded(tab.session).store.allowlists.add_entry(
            "organization", profile_of(tab.session).org_id, "198.51.100.7", "added in the dashboard"
        )
    )
    click(qtbot, child(tab, QPushButton, "refresh"))
    qtbot.waitUntil(lambda: not banner.isVisible())
    assert [entry.cidr for entry in shown(tab).entries] == ["198.51.100.7/32"]
    qtbot.waitUntil(lambda: console.indicator.text() == "● Connected")


def test_after_recovery_from_the_command_line_refresh_clears_the_block(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock_out_by_switching_on(qtbot, tab, monkeypatch)
    banner = tab.blocked_banner
    qtbot.waitUntil(banner.isVisible)
    qtbot.waitUntil(lambda: console.indicator.text() == "● Blocked: admin key (403)")
    # `python -m app sandbox allowlist disable --data DIR`, as the recovery panel offers it, acts on the store:
    run_blocking(
        embedded(tab.session).store.allowlists.set_enabled(
            "organization", profile_of(tab.session).org_id, False
        )
    )
    click(qtbot, child(tab, QPushButton, "refresh"))
    qtbot.waitUntil(lambda: not banner.isVisible())
    assert not tab.scope_bar.switch.isChecked() and not shown(tab).enabled
    assert not console.notice.isVisible()
    assert not banner.isAncestorOf(tab.recovery) and tab.recovery.isVisible()  # back in its place below
    qtbot.waitUntil(lambda: console.indicator.text() == "● Connected")


def test_removing_an_entry_that_leaves_you_covered_asks_once_without_typing(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, "198.51.100.0/24", "office")
    add(qtbot, tab, "203.0.113.0/24", "branch")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: shown(tab).enabled is True)
    questions: list[str] = []

    def question(
        _parent: object, _title: str, text: str, *args: object, **kwargs: object
    ) -> QMessageBox.StandardButton:
        questions.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", question)
    asked = typed(monkeypatch, None)
    row = next(
        r for r in range(tab.model.rowCount()) if tab.model.data(tab.model.index(r, 0)) == "203.0.113.0/24"
    )
    tab.entries.table.selectRow(row)
    click(qtbot, child(tab, QPushButton, "remove"))
    qtbot.waitUntil(lambda: len(tab.service.entries) == 1)
    assert len(questions) == 1 and "203.0.113.0/24" in questions[0] and asked == []


def test_a_list_switched_on_elsewhere_shows_on_at_the_first_refused_read(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab
) -> None:
    """The 403 itself tells that the organization's list is on (the Admin API answers to it alone)."""
    assert not tab.scope_bar.switch.isChecked()
    run_blocking(
        embedded(tab.session).store.allowlists.set_enabled(
            "organization", profile_of(tab.session).org_id, True
        )
    )
    click(qtbot, child(tab, QPushButton, "refresh"))
    qtbot.waitUntil(tab.blocked_banner.isVisible)
    assert tab.scope_bar.switch.isChecked() and "list is on" in tab.scope_bar.rule.text()
    qtbot.waitUntil(lambda: console.indicator.text() == "● Blocked: admin key (403)")


def test_a_project_list_warns_of_the_project_key_only(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Project lists never cover the Admin API: no lockout, no recovery command, and the admin key works."""
    project_id = profile_of(tab.session).project_id
    qtbot.waitUntil(lambda: bool(tab.service.projects))
    scope = tab.scope_bar.scope
    scope.setCurrentIndex(scope.findData(project_id))
    scope.activated.emit(scope.currentIndex())  # as a person picks it
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.scope == "project")
    asked: list[str] = []
    typed_words = typed(monkeypatch, "LOCK ME OUT")

    def question(
        _parent: object, title: str, text: str, *args: object, **kwargs: object
    ) -> QMessageBox.StandardButton:
        asked.append(f"{title}\n{text}")
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", question)
    click_switch(qtbot, tab)
    assert typed_words == [] and len(asked) == 1  # a plain question, not the typed lockout one
    words = " ".join(asked[0].split())
    assert "The admin key keeps working" in words and "does not cover the Admin API" in words
    assert "covers the Admin API too" not in words and "allowlist disable" not in words
    store = embedded(tab.session).store
    qtbot.waitUntil(lambda: store.allowlists.get("project", project_id).enabled)
    click(qtbot, child(tab, QPushButton, "refresh"))
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.enabled)
    assert not tab.blocked_banner.isVisible()  # the admin key still reads the lists


def test_after_recovery_elsewhere_the_banner_clears_within_seconds(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody presses Refresh: while blocked, the tab reads every few seconds (not the 30 s refresh)."""
    assert reads.BLOCKED_REFRESH_S <= 5
    monkeypatch.setattr(reads, "BLOCKED_REFRESH_S", 0.2)  # the same timer, sooner: waits 0.2 s, not 3
    lock_out_by_switching_on(qtbot, tab, monkeypatch)
    banner = tab.blocked_banner
    qtbot.waitUntil(banner.isVisible)
    assert tab.service.periodic.isActive() and tab.service.periodic.interval() == 200
    run_blocking(
        embedded(tab.session).store.allowlists.set_enabled(
            "organization", profile_of(tab.session).org_id, False
        )
    )
    qtbot.waitUntil(lambda: not banner.isVisible(), timeout=6000)
    assert tab.service.periodic.interval() == tab.service.refresh_seconds() * 1000  # back to the setting
