"""The Security tab for a team of admins, against the embedded sandbox: expiring entries (Expires on Add,
the time left, Extend), usage per entry (Hits, Last matched), the views of expired, expiring and stale
entries with their removal through the lockout guard, reading the list again on focus and on a timer, and
History with the service's audit log."""

from __future__ import annotations

import time

import httpx
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QComboBox, QMenu, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from app.core.security.entry_views import EntryView
from app.models.entries import EXPIRES, HITS, LAST_MATCHED
from app.sandbox.store.database import run_blocking
from app.services.security import audit as audit_module
from app.ui.main_window import MainWindow
from app.ui.security.history import HistoryDialog
from app.ui.security.tab import SecurityTab
from tests.gui.reach import dialog_of, embedded, profile_of


def choose(qtbot: QtBot, combo: QComboBox, text: str) -> None:
    """Pick an item of a combo box with the keyboard, as a person does."""
    combo.setFocus()
    while combo.currentText() != text:
        before = combo.currentIndex()
        qtbot.keyClick(combo, Qt.Key.Key_Down)
        assert combo.currentIndex() != before, f"{text!r} is not in the box"


def add(qtbot: QtBot, tab: SecurityTab, cidr: str, description: str = "", expires: str = "No expiry") -> None:
    tab.add_form.cidr.clear()
    qtbot.keyClicks(tab.add_form.cidr, cidr)
    qtbot.keyClicks(tab.add_form.description, description)
    tab.add_form.expires.setCurrentIndex(0)
    choose(qtbot, tab.add_form.expires, expires)
    count = len(tab.service.entries)
    qtbot.mouseClick(tab.add_form.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == count + 1, timeout=10000)


def row_of(tab: SecurityTab, cidr: str) -> int:
    return next(row for row in range(tab.model.rowCount()) if tab.model.entry(row).cidr == cidr)


def select(qtbot: QtBot, tab: SecurityTab, cidr: str) -> None:
    table = tab.entries.table
    rect = table.visualRect(tab.model.index(row_of(tab, cidr), 0))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def pick_from_menu(qtbot: QtBot, button: QPushButton, text: str) -> None:
    """Click the button, then the menu item, as a person does (the menu opens modally)."""
    timer = QTimer()

    def look() -> None:
        menu = QApplication.activePopupWidget()
        if isinstance(menu, QMenu):
            timer.stop()
            action = next(a for a in menu.actions() if a.text() == text)
            qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())

    timer.timeout.connect(look)
    timer.start(20)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not timer.isActive(), timeout=5000)


@pytest.fixture
def typed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The typed confirmation: what it asked, answered with nothing (cancel)."""
    asked: list[str] = []

    def answer(_parent: object, _title: str, label: str, *args: object, **kwargs: object) -> tuple[str, bool]:
        asked.append(label)
        return ("", False)

    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", answer)
    return asked


# The offscreen platform says these for every popup menu (it has no window manager to raise it or grab for it).
@pytest.mark.qt_log_ignore("^This plugin does not support (raise|grabbing the keyboard)")
def test_expires_on_add_shows_the_time_left_and_extend_moves_it(qtbot: QtBot, tab: SecurityTab) -> None:
    add(qtbot, tab, "203.0.113.0/24", "CI job", expires="For 1 hour")
    entry = tab.service.entries[0]
    assert entry.expires_at is not None and 3500 < entry.expires_at - time.time() <= 3600
    shown = tab.model.data(tab.model.index(row_of(tab, "203.0.113.0/24"), EXPIRES))
    assert shown in ("in 59 min", "in 1 h")
    assert tab.add_form.expires.currentText() == "No expiry"  # the form is ready for the next one
    said: list[str] = []
    tab.service.session.bus.posted.connect(lambda message: said.append(message.text))
    select(qtbot, tab, "203.0.113.0/24")
    pick_from_menu(qtbot, tab.entries.extend, "Expires in 1 week")
    qtbot.waitUntil(
        lambda: (tab.service.entries[0].expires_at or 0) - time.time() > 6 * 86_400, timeout=10000
    )
    assert any(text.startswith("1 entry now expires 20") for text in said), said
    assert tab.model.data(tab.model.index(0, EXPIRES)).startswith("in 6 d") or "in 7 d" in tab.model.data(
        tab.model.index(0, EXPIRES)
    )
    select(qtbot, tab, "203.0.113.0/24")
    pick_from_menu(qtbot, tab.entries.extend, "Never expires")
    qtbot.waitUntil(lambda: tab.service.entries[0].expires_at is None, timeout=10000)
    assert "1 entry now never expires." in said
    assert tab.model.data(tab.model.index(0, EXPIRES)) == ""
    actions = [r.action for r in tab.history.records()]
    assert actions[-2:] == ["expiry", "expiry"]


def test_expired_entries_show_as_expired_and_the_view_finds_them(qtbot: QtBot, tab: SecurityTab) -> None:
    other = embedded(tab.session).store  # another admin, with an entry about to expire
    org = profile_of(tab.session).org_id
    run_blocking(
        other.allowlists.add_entry(
            "organization", org, "192.0.2.0/24", "temp", expires_at=int(time.time()) + 1
        )
    )
    run_blocking(other.allowlists.add_entry("organization", org, "198.51.100.0/24", "office"))
    qtbot.wait(1100)
    tab.service.refresh()
    qtbot.waitUntil(lambda: len(tab.service.entries) == 2, timeout=10000)
    assert tab.model.data(tab.model.index(row_of(tab, "192.0.2.0/24"), EXPIRES)) == "expired"
    choose(qtbot, tab.entries.view, EntryView.EXPIRED.label)
    assert [tab.model.entry(r).cidr for r in range(tab.model.rowCount())] == ["192.0.2.0/24"]
    assert tab.entries.count.text() == "1 of 2 entries" and tab.entries.remove_shown.isEnabled()


def test_removing_the_shown_entries_goes_through_the_lockout_guard(
    qtbot: QtBot, tab: SecurityTab, typed: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, "198.51.100.7", "my desk", expires="For 1 day")  # the only entry covering me
    add(qtbot, tab, "192.0.2.0/24", "CI", expires="For 1 hour")
    add(qtbot, tab, "203.0.113.0/24", "office")
    tab.service.set_enabled(True)
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.enabled, timeout=10000)
    choose(qtbot, tab.entries.view, EntryView.EXPIRING.label)
    assert tab.model.rowCount() == 2
    qtbot.mouseClick(tab.entries.remove_shown, Qt.MouseButton.LeftButton)
    assert typed and "198.51.100.7" in typed[0]  # the typed confirmation, which was cancelled
    assert len(tab.service.entries) == 3
    add(qtbot, tab, "198.51.100.0/24", "the office's range")  # now something else covers me
    asked: list[str] = []

    def ask(text: str) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.question",
        lambda _parent, _title, text, *_args: ask(text),
    )
    qtbot.mouseClick(tab.entries.remove_shown, Qt.MouseButton.LeftButton)
    assert asked and "Remove 2 entries" in asked[0] and len(typed) == 1
    qtbot.waitUntil(lambda: len(tab.service.entries) == 2, timeout=10000)
    assert sorted(e.cidr for e in tab.service.entries) == ["198.51.100.0/24", "203.0.113.0/24"]


def test_hits_and_last_matched_count_the_requests_admitted(qtbot: QtBot, tab: SecurityTab) -> None:
    add(qtbot, tab, "198.51.100.0/24", "office")
    add(qtbot, tab, "203.0.113.0/24", "unused")
    sandbox, keys = tab.session.sandbox, tab.session
    api_key = keys.secrets.get(profile_of(keys).id, "api_key")
    headers = {"authorization": f"Bearer {api_key}", "x-forwarded-for": "198.51.100.9"}
    with httpx.Client(base_url=sandbox.base_url, headers=headers) as api:
        for _ in range(3):
            assert api.get("/models").status_code == 200
    tab.service.set_enabled(True)  # entries count only the requests they admitted
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.enabled, timeout=10000)
    with httpx.Client(base_url=sandbox.base_url, headers=headers) as api:
        for _ in range(3):
            assert api.get("/models").status_code == 200

    def office_hits() -> int:
        tab.service.refresh()
        entry = tab.service.data.with_cidr("198.51.100.0/24") if tab.service.data else None
        return entry.hit_count if entry else 0

    qtbot.waitUntil(lambda: office_hits() >= 3, timeout=15000)
    row = row_of(tab, "198.51.100.0/24")
    assert int(tab.model.data(tab.model.index(row, HITS)).replace(",", "")) >= 3
    matched = tab.model.data(tab.model.index(row, LAST_MATCHED))
    assert matched == "just now" or matched.endswith("ago")
    assert tab.model.data(tab.model.index(row_of(tab, "203.0.113.0/24"), LAST_MATCHED)) == "never"
    header = tab.entries.table.horizontalHeader()
    qtbot.mouseClick(
        header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(header.sectionViewportPosition(HITS) + 5, 5)
    )
    first, last = tab.model.entry(0).hit_count, tab.model.entry(tab.model.rowCount() - 1).hit_count
    assert sorted([first, last]) == [0, first + last]  # sorted by hits, one way or the other


def test_the_list_is_read_again_on_focus_and_on_a_timer_but_not_under_a_dialog(
    qtbot: QtBot, console: MainWindow, tab: SecurityTab
) -> None:
    other = embedded(tab.session).store
    org = profile_of(tab.session).org_id
    run_blocking(other.allowlists.add_entry("organization", org, "192.0.2.0/24", "from elsewhere"))
    application = QApplication.instance()
    assert isinstance(application, QApplication)
    application.applicationStateChanged.emit(Qt.ApplicationState.ApplicationActive)
    qtbot.waitUntil(lambda: len(tab.service.entries) == 1, timeout=10000)
    console.session.profiles.settings.update(lambda saved: setattr(saved.security, "refresh_seconds", 7))
    console.tabs.setCurrentWidget(console.playground)
    console.tabs.setCurrentWidget(tab)
    assert tab.service.periodic.interval() == 7000
    tab.opener.open("history")  # a dialog open beside the tab: its decisions rest on the list shown
    qtbot.waitUntil(lambda: "history" in tab.dialogs and tab.dialogs["history"].isVisible())
    assert tab.refresh_unless_busy() is False
    tab.dialogs["history"].close()
    qtbot.waitUntil(lambda: not tab.dialogs)
    run_blocking(other.allowlists.add_entry("organization", org, "192.0.2.128/25", "again"))
    tab.service.periodic.timeout.emit()
    qtbot.waitUntil(lambda: len(tab.service.entries) == 2, timeout=10000)


def test_history_merges_the_service_log_and_this_console(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_module, "PAGE_SIZE", 2)
    add(qtbot, tab, "203.0.113.0/24", "mine")
    qtbot.wait(1100)  # the log counts in whole seconds: the others' changes come a second later
    other = embedded(tab.session).store
    org = profile_of(tab.session).org_id
    for cidr in ("192.0.2.0/24", "192.0.2.128/25", "198.18.0.0/15"):
        run_blocking(other.allowlists.add_entry("organization", org, cidr, "dashboard"))
    tab.opener.open("history")
    dialog = dialog_of(tab, "history", HistoryDialog)
    qtbot.waitUntil(lambda: len(dialog.audit.rows) == 2, timeout=10000)

    def rows() -> list[tuple[str, str, str]]:
        model = dialog.proxy
        return [
            (model.index(r, 1).data(), model.index(r, 2).data(), model.index(r, 5).data())
            for r in range(model.rowCount())
        ]

    assert [r[0] for r in rows()] == ["service", "service"]  # newest first: the dashboard's adds
    assert rows()[0][1] == "dashboard" and "198.18.0.0/15" in rows()[0][2]
    qtbot.mouseClick(dialog.load_older, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(dialog.audit.rows) == 4, timeout=10000)
    sources = [r[0] for r in rows()]
    assert sources.count("service") == 4 and sources.count("this console") == 1
    mine = [r for r in rows() if "203.0.113.0/24" in r[2]]
    assert {r[0] for r in mine} == {"service", "this console"}  # both tell of my add, each saying whose
    assert any(r[1].startswith("key ") for r in mine)
    qtbot.keyClicks(dialog.filter, "this console")
    assert dialog.proxy.rowCount() == 1
