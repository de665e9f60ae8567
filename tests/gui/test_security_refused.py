"""Refused…, Simplify…, a policy file imported, and the evidence before a removal, in the Security tab against the embedded sandbox,
clicked and typed as a person does; other clients play their source address through X-Forwarded-For."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.policy_import_view import PolicyImportDialog
from app.ui.security.refused_view import RefusedDialog
from app.ui.security.simplify_view import SimplifyDialog
from app.ui.security.tab import SecurityTab
from tests.gui.reach import choose, dialog_of, profile_of
from tests.gui.test_security_teams import pick_from_menu, select


def _api(tab: SecurityTab, ip: str) -> httpx.Client:
    session = tab.session
    api_key = session.secrets.get(profile_of(session).id, "api_key")
    headers = {"authorization": f"Bearer {api_key}", "x-forwarded-for": ip}
    return httpx.Client(base_url=session.sandbox.base_url, headers=headers)


def _project_list_on(qtbot: QtBot, tab: SecurityTab, *cidrs: str) -> None:
    """The project's list (the one the API key belongs to) with `cidrs`, switched on."""
    project = tab.service.projects[0].id
    tab.service.set_scope(project)
    qtbot.waitUntil(lambda: tab.service.project_id == project and tab.service.data is not None, timeout=10000)
    for cidr in cidrs:
        count = len(tab.service.entries)
        tab.service.add(cidr, "")
        qtbot.waitUntil(lambda n=count: len(tab.service.entries) == n + 1, timeout=10000)  # type: ignore[misc]
    tab.service.set_enabled(True, force=True)  # the admin plays an address no entry holds
    qtbot.waitUntil(lambda: tab.service.data is not None and tab.service.data.enabled, timeout=10000)


def _click(qtbot: QtBot, tab: SecurityTab, name: str) -> None:
    choose(tab, name)


@pytest.mark.qt_log_ignore(
    "^This plugin does not support (raise|grabbing the keyboard)"
)  # the menu, offscreen
def test_a_refused_request_shows_within_2_s_and_allow_admits_it(qtbot: QtBot, tab: SecurityTab) -> None:
    _project_list_on(qtbot, tab, "203.0.113.0/24")
    _click(qtbot, tab, "refused")
    dialog = dialog_of(tab, "refused", RefusedDialog)
    with _api(tab, "127.0.0.9") as api:
        assert api.get("/models").status_code == 403
    started = time.monotonic()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 1, timeout=2000)
    assert time.monotonic() - started <= 2.0
    assert (
        dialog.model.item(0, 0).text() == "127.0.0.9"
        and dialog.model.item(0, 4).text() == "the project's list"
    )
    qtbot.mouseClick(
        dialog.table.viewport(),
        Qt.MouseButton.LeftButton,
        pos=dialog.table.visualRect(dialog.model.index(0, 0)).center(),
    )
    assert dialog.allow.isEnabled()
    pick_from_menu(qtbot, dialog.allow, "Expires in 1 hour")
    qtbot.waitUntil(lambda: any(e.cidr == "127.0.0.9/32" for e in tab.service.entries), timeout=10000)
    allowed = next(e for e in tab.service.entries if e.cidr == "127.0.0.9/32")
    assert allowed.expires_at is not None and 3500 < allowed.expires_at - time.time() <= 3600
    with _api(tab, "127.0.0.9") as api:
        assert api.get("/models").status_code == 200
    last = tab.history.records()[-1]
    assert last.action == "add" and last.what.startswith("127.0.0.9") and last.scope.startswith("Project")
    dialog.close()


def test_the_status_bar_says_when_a_source_admitted_before_is_refused(
    qtbot: QtBot, tab: SecurityTab, console: MainWindow
) -> None:
    _project_list_on(qtbot, tab, "10.9.0.0/16", "203.0.113.0/24")
    with _api(tab, "10.9.9.9") as api:
        assert api.get("/models").status_code == 200
    _click(qtbot, tab, "refused")
    dialog = dialog_of(tab, "refused", RefusedDialog)
    wide = next(e for e in tab.service.entries if e.cidr == "10.9.0.0/16")
    tab.service.remove([wide.id])
    qtbot.waitUntil(lambda: all(e.cidr != "10.9.0.0/16" for e in tab.service.entries), timeout=10000)
    with _api(tab, "10.9.9.9") as api:
        assert api.get("/models").status_code == 403
    qtbot.waitUntil(lambda: "10.9.9.9" in console.statusBar().currentMessage(), timeout=5000)
    assert "admitted before" in console.statusBar().currentMessage()
    dialog.close()


def test_the_status_bar_says_it_with_the_view_never_opened(
    qtbot: QtBot, tab: SecurityTab, console: MainWindow
) -> None:
    _project_list_on(qtbot, tab, "10.9.0.0/16", "203.0.113.0/24")
    tab.service.periodic.timeout.emit()  # the tab's periodic read (every 30 s while the tab is shown)
    with _api(tab, "10.9.9.9") as api:
        assert api.get("/models").status_code == 200
    wide = next(e for e in tab.service.entries if e.cidr == "10.9.0.0/16")
    tab.service.remove([wide.id])
    qtbot.waitUntil(lambda: all(e.cidr != "10.9.0.0/16" for e in tab.service.entries), timeout=10000)
    with _api(tab, "10.9.9.9") as api:
        assert api.get("/models").status_code == 403
    qtbot.waitUntil(lambda: not tab.session.tasks.running("refused.poll"), timeout=5000)
    tab.service.periodic.timeout.emit()  # the next one
    qtbot.waitUntil(lambda: "10.9.9.9" in console.statusBar().currentMessage(), timeout=5000)
    assert "admitted before" in console.statusBar().currentMessage()
    assert "refused" not in tab.dialogs  # the view was never opened


def test_simplify_previews_the_merge_and_makes_it(qtbot: QtBot, tab: SecurityTab) -> None:
    for cidr in ("10.0.0.0/25", "10.0.0.128/25", "192.0.2.7"):
        count = len(tab.service.entries)
        tab.service.add(cidr, "half" if cidr.startswith("10.") else "")
        qtbot.waitUntil(lambda n=count: len(tab.service.entries) == n + 1, timeout=10000)  # type: ignore[misc]
    _click(qtbot, tab, "simplify")
    dialog = dialog_of(tab, "simplify", SimplifyDialog)
    assert dialog.windowTitle().startswith("Simplify the allowlist: ")  # as Import into …: names the list
    summary = dialog.findChild(QLabel, "simplify_summary")
    assert summary is not None and "3 entries become 2 (limit 1,000)" in summary.text()
    merged = dialog.tree.topLevelItem(0)
    assert merged is not None and merged.text(0) == "10.0.0.0/24" and merged.childCount() == 2
    messages: list[str] = []
    tab.session.bus.posted.connect(lambda message: messages.append(message.text))
    qtbot.mouseClick(dialog.apply, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(m.startswith("Simplified") for m in messages), timeout=10000)
    assert messages[-1] == "Simplified: 3 entries are now 2."
    qtbot.waitUntil(lambda: len(tab.service.entries) == 2, timeout=10000)
    assert sorted(e.cidr for e in tab.service.entries) == ["10.0.0.0/24", "192.0.2.7/32"]
    last = tab.history.records()[-1]  # History shows it among this console's changes
    assert last.action == "simplify" and last.what == "3 entries into 2: 10.0.0.0/24"


def test_remove_selected_says_whom_the_entry_admitted(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project_list_on(qtbot, tab, "10.1.0.0/16", "10.1.2.0/24")
    with _api(tab, "10.1.9.9") as api:
        for _ in range(2):
            assert api.get("/models").status_code == 200
    with _api(tab, "10.1.2.3") as api:
        assert api.get("/models").status_code == 200
    select(qtbot, tab, "10.1.0.0/16")
    tools = tab.opener.tools
    qtbot.waitUntil(lambda: tools._sources.get(tab.service.project_id) is not None, timeout=5000)
    asked: list[str] = []

    def ask(_parent: object, _title: str, text: str, *_args: object) -> int:
        asked.append(text)
        return 0  # neither Yes nor No: nothing is removed

    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.question", ask)
    select(qtbot, tab, "10.1.0.0/16")  # again: the list read meanwhile leaves no row selected
    remove = tab.entries.findChild(QPushButton, "remove")
    assert remove is not None
    qtbot.mouseClick(remove, Qt.MouseButton.LeftButton)
    assert asked, "the removal asked nothing"
    assert "last 30 days: 3 requests from 2 addresses" in asked[0]
    assert "10.1.9.9: 2 requests, would be refused" in asked[0]
    assert "10.1.2.3: 1 request, still admitted" in asked[0]


def test_a_policy_file_imported_shows_its_plan_with_whom_it_cuts_off(
    qtbot: QtBot, tab: SecurityTab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project_list_on(qtbot, tab, "10.1.0.0/16", "203.0.113.0/24")
    with _api(tab, "10.1.9.9") as api:
        assert api.get("/models").status_code == 200
    project = tab.service.project_id
    policy = tmp_path / "allowlists.toml"
    policy.write_text(
        f'# reviewed\n[projects."{project}"]\nenabled = true\n\n'
        f'[[projects."{project}".entries]]\ncidr = "203.0.113.0/24"\n\n'
        f'[[projects."{project}".entries]]\ncidr = "192.0.2.0/24"\ndescription = "new office"\n'
    )
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getOpenFileName", lambda *a, **k: (str(policy), ""))
    _click(qtbot, tab, "import")
    dialog = dialog_of(tab, "policy_import", PolicyImportDialog)
    qtbot.waitUntil(
        lambda: "10.1.9.9: 1 request, would be refused" in dialog.preview.toPlainText(), timeout=5000
    )
    text = dialog.preview.toPlainText()
    assert "+ 192.0.2.0/24" in text and "- 10.1.0.0/16" in text
    qtbot.mouseClick(dialog.apply, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: sorted(e.cidr for e in tab.service.entries) == ["192.0.2.0/24", "203.0.113.0/24"],
        timeout=10000,
    )
    assert tab.history.records()[-1].what == "1 added, 1 removed, 0 changed"
