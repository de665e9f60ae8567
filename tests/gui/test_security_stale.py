""" "Not matched in N days" end to end: entries aged in the sandbox's own store while it is stopped (the API
cannot age an entry, and the server has no test clock), then shown by the view after a restart, and removed
in bulk through the lockout guard."""

from __future__ import annotations

import sqlite3
import time

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from app.core.security.entry_views import DAY_S, EntryView
from app.ui.security.tab import SecurityTab
from tests.gui.reach import embedded, profile_of
from tests.gui.test_security_teams import add, choose

MY_DESK, OLD_OFFICE, OLD_CI, PARTNER = "198.51.100.7/32", "198.51.100.0/24", "192.0.2.0/24", "203.0.113.0/24"


def age(tab: SecurityTab, created_days_ago: int, matched_days_ago: int, *cidrs: str) -> None:
    """Stop the embedded sandbox (it writes the usage it counted), set when the entries were made and last
    matched in its SQLite store, and start it again on the same port and store."""
    sandbox = tab.session.sandbox
    sandbox.stop()
    now = int(time.time())
    with sqlite3.connect(sandbox.data_dir / "sandbox.sqlite3") as db:
        for cidr in cidrs:
            changed = db.execute(
                "UPDATE entries SET created_at = ?, last_matched_at = ? WHERE cidr = ?",
                (now - created_days_ago * DAY_S, now - matched_days_ago * DAY_S, cidr),
            ).rowcount
            assert changed == 1, cidr
    db.close()
    sandbox.start()


def last_matched(tab: SecurityTab, cidr: str) -> float:
    """Read the list again (a stopped server's connections fail once) and tell when `cidr` last matched."""
    tab.service.refresh()
    entry = tab.service.data.with_cidr(cidr) if tab.service.data else None
    return (entry.last_matched_at or 0) if entry else 0


def cancel_typed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lockout guard's typed confirmation, cancelled: what it asked."""
    asked: list[str] = []

    def answer(_parent: object, _title: str, label: str, *args: object, **kwargs: object) -> tuple[str, bool]:
        asked.append(label)
        return ("", False)

    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", answer)
    return asked


def shown(tab: SecurityTab) -> list[str]:
    return sorted(tab.model.entry(row).cidr for row in range(tab.model.rowCount()))


def test_entries_not_matched_in_n_days_are_shown_and_removed_through_the_guard(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, MY_DESK, "my desk")  # covers me, the most specific: my own reads match it
    add(qtbot, tab, OLD_OFFICE, "old office")  # covers me too, but never matches while my desk is listed
    add(qtbot, tab, OLD_CI, "old CI runner")
    add(qtbot, tab, PARTNER, "partner")
    tab.service.set_enabled(True)  # entries count only the requests they admit
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.enabled, timeout=10000)
    age(tab, 40, 31, OLD_OFFICE, OLD_CI, PARTNER)  # made 40 days ago, last matched 31 days ago

    api_key = tab.session.secrets.get(profile_of(tab.session).id, "api_key")
    headers = {"authorization": f"Bearer {api_key}", "x-forwarded-for": "203.0.113.5"}
    with httpx.Client(base_url=embedded(tab.session).base_url, headers=headers) as api:
        assert api.get("/models").status_code == 200  # the partner's entry matches again, now
    qtbot.waitUntil(lambda: last_matched(tab, PARTNER) > time.time() - 3600, timeout=20000)
    assert last_matched(tab, OLD_CI) < time.time() - 30 * DAY_S  # the restart kept what was aged

    choose(qtbot, tab.entries.view, EntryView.NOT_MATCHED.label)
    assert tab.entries.days.isVisible() and tab.entries.days.value() == 30
    assert shown(tab) == [OLD_CI, OLD_OFFICE]  # not my desk (made now), nor the partner (matched now)
    assert tab.entries.count.text() == "2 of 4 entries"
    tab.entries.days.setValue(45)  # last matched 31 days ago is within 45 days
    assert shown(tab) == []
    tab.entries.days.setValue(30)
    assert shown(tab) == [OLD_CI, OLD_OFFICE]

    typed = cancel_typed(
        monkeypatch
    )  # the guard's typed confirmation, were it asked (it must not be: my desk stays)
    asked: list[str] = []

    def ask(text: str) -> QMessageBox.StandardButton:
        asked.append(text)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.question", lambda _parent, _title, text, *_args: ask(text)
    )
    qtbot.mouseClick(tab.entries.remove_shown, Qt.MouseButton.LeftButton)
    assert not typed and asked and asked[0].startswith("Remove 2 entries?")
    assert OLD_CI in asked[0] and OLD_OFFICE in asked[0]
    qtbot.waitUntil(lambda: len(tab.service.entries) == 2, timeout=10000)
    assert sorted(e.cidr for e in tab.service.entries) == [MY_DESK, PARTNER]


def test_removing_the_stale_entry_that_covers_me_asks_the_typed_confirmation(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard judges the removal, not the view: the only entry covering me, stale in the list as last read,
    is not removed without the typed confirmation. (It was aged while the list was off, when an entry counts
    nothing; the list shown is the answer to switching it on, a request the list, still off, did not count.)"""
    add(qtbot, tab, OLD_OFFICE, "old office")
    add(qtbot, tab, PARTNER, "partner")
    age(tab, 40, 31, OLD_OFFICE)
    qtbot.waitUntil(lambda: last_matched(tab, OLD_OFFICE) > 0, timeout=20000)
    # The last of those reads answered before the list goes on: one still out would reach the list on, be
    # admitted by the old office (matched now), and its answer could come in before the view is chosen.
    qtbot.waitUntil(lambda: not tab.session.tasks.running("allowlist.refresh"))
    tab.service.set_enabled(True)
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.enabled, timeout=10000)
    choose(qtbot, tab.entries.view, EntryView.NOT_MATCHED.label)
    assert shown(tab) == [OLD_OFFICE]
    typed = cancel_typed(monkeypatch)
    qtbot.mouseClick(tab.entries.remove_shown, Qt.MouseButton.LeftButton)
    assert typed and OLD_OFFICE in typed[0]  # cancelled: nothing removed
    assert sorted(e.cidr for e in tab.service.entries) == [OLD_OFFICE, PARTNER]
