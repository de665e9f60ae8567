"""The guided rotation, as an admin moving from one office address to another, against the sandbox.

The sandbox profile's simulated source IP plays the move: the admin types the new address in the toolbar.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.sandbox.store.database import run_blocking
from app.ui.main_window import MainWindow
from app.ui.security.rotation import RotationDialog
from app.ui.security.tab import SecurityTab
from tests.gui.reach import dialog_of, embedded, place_console, plan_of, profile_of, shown

from .test_security import add, click_switch

OLD, NEW = "198.51.100.0/24", "203.0.113.0/24"


@pytest.fixture
def tab(console: MainWindow, qtbot: QtBot) -> SecurityTab:
    console.tabs.setCurrentWidget(console.security)
    play(qtbot, console, "198.51.100.7")
    security = console.security
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).source_ip == "198.51.100.7")
    add(qtbot, security, OLD, "old office")
    click_switch(qtbot, security)
    qtbot.waitUntil(lambda: shown(security).enabled is True)
    return security


def play(qtbot: QtBot, console: MainWindow, ip: str) -> None:
    """The admin moves to another network: the console's requests come from `ip` (Play IP would move only
    the Playground's), and the tab reads the list from there."""
    place_console(console.session, ip)
    console.security.service.refresh()


def click(qtbot: QtBot, dialog: QWidget, name: str) -> None:
    button = dialog.findChild(QPushButton, name)
    assert button is not None and button.isEnabled(), f"{name} is not clickable"
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def cidrs(tab: SecurityTab) -> list[str]:
    store = embedded(tab.session).store
    return [e.cidr for e in store.allowlists.get("organization", profile_of(tab.session).org_id).entries]


def start_rotation(qtbot: QtBot, tab: SecurityTab) -> RotationDialog:
    tab.entries.table.selectRow(0)
    qtbot.mouseClick(tab.findChild(QPushButton, "rotate"), Qt.MouseButton.LeftButton)
    dialog = dialog_of(tab, "rotation", RotationDialog)
    assert dialog.old.currentData().cidr == OLD
    qtbot.keyClicks(dialog.new, "203.0.113.5/24")
    assert "host bits" in dialog.new_verdict.text() and not dialog.start_button.isEnabled()
    dialog.new.clear()
    qtbot.keyClicks(dialog.new, NEW)
    click(qtbot, dialog, "start")
    qtbot.waitUntil(lambda: tab.rotation.plan is not None and plan_of(tab).step == "added")
    return dialog


def test_rotation_adds_probes_then_removes(qtbot: QtBot, console: MainWindow, tab: SecurityTab) -> None:
    dialog = start_rotation(qtbot, tab)
    assert cidrs(tab) == [OLD, NEW]
    # Still at the old address: the probe refuses, and the old entry cannot be removed yet.
    assert not dialog.remove_button.isEnabled()
    click(qtbot, dialog, "probe")
    qtbot.waitUntil(lambda: "outside the new entry" in dialog.probe_text.text())
    assert plan_of(tab).step == "added" and not dialog.remove_button.isEnabled()
    # The admin moves to the new network and probes again.
    play(qtbot, console, "203.0.113.40")
    click(qtbot, dialog, "probe")
    qtbot.waitUntil(lambda: plan_of(tab).step == "confirmed")
    assert "203.0.113.40" in dialog.probe_text.text() and dialog.remove_button.isEnabled()
    click(qtbot, dialog, "remove_old")
    qtbot.waitUntil(lambda: plan_of(tab).step == "done")
    assert cidrs(tab) == [NEW]
    assert "done" in dialog.summary.text()
    dialog.close()
    assert tab.rotation.plan is None and not tab.scope_bar.rotation_row.isVisibleTo(tab)
    actions = [r.what for r in tab.history.records() if r.action == "rotation"]
    assert any("added the new entry" in a for a in actions) and any(
        "removed the old entry" in a for a in actions
    )


def test_rotation_resumes_after_the_console_is_closed(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, tmp_path: Path
) -> None:
    dialog = start_rotation(qtbot, tab)
    dialog.close()
    saved = json.loads((tmp_path / "data" / "rotations.json").read_text())
    assert saved[profile_of(tab.session).id]["step"] == "added"
    assert "key" not in json.dumps(saved).lower()
    # A new window on the same data (the app opened again): the banner offers to resume.
    from app.bootstrap import Paths, make_session
    from app.ui.main_window import MainWindow

    console.session.sandbox.stop()
    session = make_session(Paths.under(tmp_path), interactive=False)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()
    session.tasks.start("startup", session.activate())
    qtbot.waitUntil(
        lambda: session.client is not None and not session.tasks.running("startup"), timeout=10000
    )
    place_console(session, "198.51.100.7")  # opened again where it was closed, at the old office
    session.tasks.start("check", session.check_connection())
    qtbot.waitUntil(lambda: session.state == "ok", timeout=10000)
    try:
        security = window.security
        window.tabs.setCurrentWidget(security)
        qtbot.waitUntil(lambda: security.scope_bar.rotation_row.isVisibleTo(security))
        assert (
            "step 2 of 3" in security.scope_bar.rotation_banner.text()
            and NEW in security.scope_bar.rotation_banner.text()
        )
        qtbot.mouseClick(security.findChild(QPushButton, "resume_rotation"), Qt.MouseButton.LeftButton)
        resumed = dialog_of(security, "rotation", RotationDialog)
        assert resumed.probe_button.isEnabled() and not resumed.remove_button.isEnabled()
        play(qtbot, window, "203.0.113.9")
        click(qtbot, resumed, "probe")
        qtbot.waitUntil(lambda: plan_of(security).step == "confirmed")
        click(qtbot, resumed, "remove_old")
        qtbot.waitUntil(lambda: plan_of(security).step == "done")
        assert cidrs(security) == [NEW]
    finally:
        session.sandbox.stop()


def test_new_entry_removed_elsewhere_sends_the_rotation_back(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab
) -> None:
    dialog = start_rotation(qtbot, tab)
    store = embedded(tab.session).store
    new_id = plan_of(tab).new_id
    assert new_id is not None
    run_blocking(
        store.allowlists.remove_entry("organization", profile_of(tab.session).org_id, new_id)
    )  # a second admin, in the dashboard
    play(qtbot, console, "203.0.113.40")  # from the new address the list now refuses the admin
    click(qtbot, dialog, "probe")
    qtbot.waitUntil(lambda: "Requests are refused" in dialog.probe_text.text())
    assert plan_of(tab).step == "added" and not dialog.remove_button.isEnabled()
    play(qtbot, console, "198.51.100.7")  # back at the old address, the probe sees the list
    qtbot.waitUntil(lambda: dialog.probe_button.isEnabled())
    click(qtbot, dialog, "probe")
    qtbot.waitUntil(lambda: plan_of(tab).step == "planned")
    assert "no longer on the list" in dialog.probe_text.text() and dialog.add_button.isEnabled()
    assert OLD in cidrs(tab)  # the old entry is never removed without a confirmation


def test_cancel_keeps_both_entries(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    dialog = start_rotation(qtbot, tab)
    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.question", lambda *a, **k: QMessageBox.StandardButton.Yes
    )
    click(qtbot, dialog, "cancel_rotation")
    assert tab.rotation.plan is None and dialog.planning.isVisible()
    assert cidrs(tab) == [OLD, NEW]
    assert any("cancelled" in r.what for r in tab.history.records())


def test_a_long_description_keeps_the_dialog_inside_the_screen(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab
) -> None:
    add(qtbot, tab, "192.0.2.0/24", "a very long description " * 8)
    qtbot.waitUntil(lambda: len(shown(tab).entries) == 2)
    qtbot.mouseClick(tab.findChild(QPushButton, "rotate"), Qt.MouseButton.LeftButton)
    dialog = dialog_of(tab, "rotation", RotationDialog)
    qtbot.waitExposed(dialog)
    assert dialog.width() <= 900  # it was 1,624 px wide on a 1,400 px screen
    row = next(i for i in range(dialog.old.count()) if dialog.old.itemData(i).cidr == "192.0.2.0/24")
    assert dialog.old.itemText(row).endswith("…")
    assert "a very long description " * 8 in dialog.old.itemData(row, Qt.ItemDataRole.ToolTipRole) + " "
    dialog.close()
