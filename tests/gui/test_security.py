"""The Security tab as an admin uses it, against the embedded sandbox, playing several source IPs."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton


def add(qtbot, tab, cidr: str, description: str = "") -> None:
    tab.cidr.clear()
    qtbot.keyClicks(tab.cidr, cidr)
    qtbot.keyClicks(tab.description, description)
    count = len(tab.service.entries)
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == count + 1)


def typed(monkeypatch, word: str | None) -> list[str]:
    asked: list[str] = []

    def answer(_parent, _title, label, *args, **kwargs):
        asked.append(label)
        return (word or "", word is not None)

    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getText", answer)
    return asked


def test_shows_your_ip_and_adds_it(qtbot, tab) -> None:
    assert "198.51.100.7" in tab.my_ip.text()
    qtbot.mouseClick(tab.findChild(QPushButton, "add_mine"), Qt.MouseButton.LeftButton)
    assert tab.cidr.text() == "198.51.100.7" and tab.add_button.isEnabled()
    qtbot.keyClicks(tab.description, "office")
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == 1)
    assert tab.model.rowCount() == 1
    assert tab.model.data(tab.model.index(0, 0)) == "198.51.100.7/32"
    assert tab.model.data(tab.model.index(0, 4)) == "✓ you"


def test_live_validation_names_the_fault_and_offers_fixes(qtbot, tab) -> None:
    qtbot.keyClicks(tab.cidr, "192.168.1.5/24")
    assert "host bits" in tab.verdict.text() and not tab.add_button.isEnabled()
    qtbot.mouseClick(tab.findChild(QPushButton, "use_192.168.1.0/24"), Qt.MouseButton.LeftButton)
    assert tab.cidr.text() == "192.168.1.0/24"
    assert "private range" in tab.verdict.text() and tab.add_button.isEnabled()
    tab.cidr.clear()
    qtbot.keyClicks(tab.cidr, "010.0.0.1")
    assert "leading zero" in tab.verdict.text()


def test_duplicates_and_overlaps_are_shown_before_sending(qtbot, tab) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    tab.cidr.clear()
    qtbot.keyClicks(tab.cidr, "198.51.100.0/24")
    assert "Duplicate" in tab.verdict.text() and not tab.add_button.isEnabled()
    tab.cidr.clear()
    qtbot.keyClicks(tab.cidr, "198.51.100.8/29")
    assert "already covered" in tab.verdict.text()


def test_whole_space_needs_a_typed_confirmation(qtbot, tab, monkeypatch) -> None:
    typed(monkeypatch, "no")
    qtbot.keyClicks(tab.cidr, "0.0.0.0/0")
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    assert tab.service.entries == ()
    assert tab.cidr.text() == "0.0.0.0/0"  # refused: nothing sent, nothing lost
    typed(monkeypatch, "ALLOW ALL")
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(tab.service.entries) == 1)


def click_switch(qtbot, tab) -> None:
    qtbot.mouseClick(tab.switch, Qt.MouseButton.LeftButton, pos=QPoint(6, tab.switch.height() // 2))


def test_switching_on_without_cover_is_stopped_then_typed(qtbot, tab, monkeypatch) -> None:
    add(qtbot, tab, "203.0.113.0/24")
    asked = typed(monkeypatch, None)  # the person cancels
    click_switch(qtbot, tab)
    assert asked and "locked out" in asked[0] and not tab.switch.isChecked()
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: tab.service.data.enabled is True)
    assert tab.switch.isChecked()


def test_removing_your_cover_is_stopped_and_forced_only_when_typed(qtbot, tab, monkeypatch) -> None:
    add(qtbot, tab, "198.51.100.0/24", "mine")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: tab.service.data.enabled is True)
    tab.table.selectRow(0)
    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.question", lambda *a, **k: QMessageBox.StandardButton.Yes
    )
    typed(monkeypatch, None)
    qtbot.mouseClick(tab.findChild(QPushButton, "remove"), Qt.MouseButton.LeftButton)
    assert len(tab.service.entries) == 1
    typed(monkeypatch, "LOCK ME OUT")
    qtbot.mouseClick(tab.findChild(QPushButton, "remove"), Qt.MouseButton.LeftButton)
    store = tab.session.sandbox.server.store
    qtbot.waitUntil(lambda: store.allowlist("organization", tab.session.profile.org_id).entries == ())
    # Now locked out, as the person chose: the next read is refused, and the tab says how to recover.
    assert "python -m app.sandbox allowlist disable" in tab.findChild(QLabel, "guidance").text()


def test_check_an_ip_names_the_entry_or_the_nearest(qtbot, tab) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: tab.service.data.enabled is True)
    qtbot.keyClicks(tab.check_input, "198.51.100.9")
    assert "allowed by 198.51.100.0/24" in tab.check_result.text() and "ALLOWED" in tab.check_result.text()
    tab.check_input.clear()
    qtbot.keyClicks(tab.check_input, "198.51.101.1")
    assert (
        "nearest entry: 198.51.100.0/24" in tab.check_result.text() and "BLOCKED" in tab.check_result.text()
    )


def test_project_scope_shows_the_effective_rule(qtbot, tab) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    click_switch(qtbot, tab)
    qtbot.waitUntil(lambda: tab.service.data.enabled is True)
    tab.scope.setCurrentIndex(1)
    tab.scope.activated.emit(1)
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.scope == "project")
    add(qtbot, tab, "203.0.113.0/24")
    assert "AND" in tab.rule.text() and "never admits: 203.0.113.0/24" in tab.rule.text()


def test_filter_and_sort(qtbot, tab) -> None:
    for cidr, description in (
        ("203.0.113.0/24", "branch"),
        ("198.51.100.0/24", "office"),
        ("2001:db8::/48", "v6"),
    ):
        add(qtbot, tab, cidr, description)
    qtbot.keyClicks(tab.filter, "off")
    assert tab.model.rowCount() == 1
    tab.filter.clear()
    tab.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    shown = [tab.model.data(tab.model.index(row, 0)) for row in range(tab.model.rowCount())]
    assert shown == ["198.51.100.0/24", "203.0.113.0/24", "2001:db8::/48"]


def test_a_change_made_elsewhere_is_shown_not_overwritten(qtbot, tab, monkeypatch) -> None:
    add(qtbot, tab, "198.51.100.0/24")
    notices: list[str] = []
    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.information", lambda _p, _t, text: notices.append(text)
    )
    other = tab.session.sandbox.server.store  # a second admin, through the dashboard
    other.add_entry("organization", tab.session.profile.org_id, "192.0.2.0/24", "someone else")
    tab.cidr.clear()
    qtbot.keyClicks(tab.cidr, "203.0.113.0/24")
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(notices))
    cidrs = [e.cidr for e in tab.service.entries]
    assert "changed elsewhere" in notices[0] and "192.0.2.0/24" in cidrs and "203.0.113.0/24" not in cidrs


def test_without_admin_key_the_tab_says_what_it_needs(qtbot, console) -> None:
    session = console.session
    session.client.transport.settings.admin_key = None
    session.client_changed.emit()
    assert "needs an admin key" in console.security.need.text()
    assert console.security.need.isVisibleTo(console.security)


def test_refreshes_every_so_often_only_while_shown(qtbot, console, tab) -> None:
    assert tab.service.periodic.isActive()
    console.tabs.setCurrentWidget(console.playground)
    assert not tab.service.periodic.isActive()
    console.tabs.setCurrentWidget(tab)
    assert tab.service.periodic.isActive()
    console.close()
    assert not tab.service.periodic.isActive()
