"""The Keys window against the embedded sandbox: the table, creating a key shown once and put into the
profile, the revoke guard, the guided key rotation (across a restart) and the leaked-key path."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox
from pytestqt.qtbot import QtBot

from app.models.keys import LAST_USED, NAME
from app.services.security.key_rotation import KeyRotationService, KeyStep
from app.ui.main_window import MainWindow
from app.ui.playground.dialogs import TextTabsDialog
from app.ui.security.key_create import CreateKeyDialog
from app.ui.security.key_rotation import KeyRotationDialog
from app.ui.security.keys_view import LOCK_WORD, KeysDialog
from app.ui.security.tab import SecurityTab
from tests.gui import reach
from tests.gui.reach import child, client_of, dialog_of, embedded, profile_of
from tests.gui.test_playground import wait_done
from tests.gui.test_secrets import files_under, secret_of
from tests.gui.test_security import add, typed


def open_keys(qtbot: QtBot, tab: SecurityTab) -> KeysDialog:
    reach.choose(tab, "keys")
    keys = dialog_of(tab, "keys", KeysDialog)
    qtbot.waitUntil(lambda: keys.model.rowCount() > 0)
    return keys


def in_project(qtbot: QtBot, keys: KeysDialog) -> None:
    keys.scope.setCurrentIndex(1)
    keys.scope.activated.emit(1)
    qtbot.waitUntil(lambda: keys.service.project_id is not None and keys.model.rowCount() > 0)


def choose(qtbot: QtBot, keys: KeysDialog, name: str) -> None:
    qtbot.waitUntil(lambda: any(key.name == name for key in keys.model.keys))
    keys.select(next(key.id for key in keys.model.keys if key.name == name))


def status(url: str, key: str) -> int:
    with httpx.Client(base_url=url) as http:
        return http.get("/models", headers={"authorization": f"Bearer {key}"}).status_code


def test_table_create_once_use_in_profile_and_the_revoke_guard(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    keys = open_keys(qtbot, tab)
    assert keys.model.data(keys.model.index(0, NAME)) == "First admin key (this console)"
    assert keys.model.data(keys.model.index(0, LAST_USED)) == "just now"
    in_project(qtbot, keys)

    def fill(form: CreateKeyDialog) -> int:
        form.name.setText("CI of repo X")
        form.permissions.setCurrentIndex(1)  # read only
        return int(QDialog.DialogCode.Accepted)

    monkeypatch.setattr(CreateKeyDialog, "exec", fill)
    qtbot.mouseClick(keys.buttons["create_key"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: keys.new_key.isVisible() and keys.new_key.made is not None)
    made = keys.new_key.made
    assert made is not None and keys.new_key.value.text() == made.value
    qtbot.waitUntil(lambda: any(key.name == "CI of repo X" for key in keys.model.keys))
    row = next(key for key in keys.model.keys if key.name == "CI of repo X")
    assert row.permissions == "read_only" and row.owner_name == "service account: CI of repo X"
    url = embedded(tab.session).base_url
    assert status(url, made.value) == 200
    profile = profile_of(tab.session)
    monkeypatch.setattr("PySide6.QtWidgets.QInputDialog.getItem", lambda *_args, **_kw: (profile.name, True))
    qtbot.mouseClick(keys.new_key.use, Qt.MouseButton.LeftButton)
    assert tab.session.secrets.get(profile.id, "api_key") == made.value
    assert client_of(tab.session).transport.settings.api_key == made.value
    qtbot.mouseClick(keys.new_key.done, Qt.MouseButton.LeftButton)
    assert keys.new_key.value.text() == ""

    keys.service.refresh()
    choose(qtbot, keys, "CI of repo X")
    asked = typed(
        monkeypatch, "no"
    )  # this console's key now: the typed word, and a wrong one changes nothing
    qtbot.mouseClick(keys.buttons["revoke_key"], Qt.MouseButton.LeftButton)
    assert asked and LOCK_WORD in asked[0] and status(url, made.value) == 200
    typed(monkeypatch, LOCK_WORD)
    qtbot.mouseClick(keys.buttons["revoke_key"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(key.name != "CI of repo X" for key in keys.model.keys))
    assert status(url, made.value) == 401
    for path in files_under(tmp_path):
        content = path.read_bytes()
        assert made.value.encode() not in content and secret_of(made.value).encode() not in content, path


def test_the_guided_rotation_switches_the_console_and_survives_a_restart(
    qtbot: QtBot, tab: SecurityTab, tmp_path: Path
) -> None:
    keys = open_keys(qtbot, tab)
    in_project(qtbot, keys)
    choose(qtbot, keys, "First project key")
    old_value = client_of(tab.session).transport.settings.api_key
    assert old_value is not None
    qtbot.mouseClick(keys.buttons["rotate_key"], Qt.MouseButton.LeftButton)
    dialog = keys.rotation_dialog
    assert isinstance(dialog, KeyRotationDialog)
    dialog.quiet.setValue(1)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.new_key.made is not None)
    made = dialog.new_key.made
    assert made is not None
    plan = keys.rotation.plan
    assert plan is not None and plan.switched_console and plan.step == KeyStep.CREATED
    assert client_of(tab.session).transport.settings.api_key == made.value
    profile = profile_of(tab.session)
    assert tab.session.secrets.get(profile.id, "api_key") == made.value
    url = embedded(tab.session).base_url
    assert status(url, made.value) == 200 and status(url, old_value) == 200  # both work meanwhile
    assert not dialog.revoke_button.isEnabled()

    # A restart: the plan comes back from its file, the old key still to be watched.
    again = KeyRotationService(keys.service)
    restored = again.plan
    assert restored is not None and restored.old_id == plan.old_id and restored.step == KeyStep.CREATED
    # Two minutes later, the old key unused meanwhile: quiet for the chosen minute.
    later = time.time() + 120
    keys.rotation.clock = lambda: later
    qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(dialog.revoke_button.isEnabled)
    assert "quiet" in dialog.step.text()
    answer = QMessageBox.StandardButton.Yes
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(QMessageBox, "question", lambda *_a, **_k: answer)
        qtbot.mouseClick(dialog.revoke_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: keys.rotation.plan is not None and keys.rotation.plan.step == KeyStep.DONE)
    assert status(url, old_value) == 401 and status(url, made.value) == 200
    assert (
        made.value not in (tmp_path / "key-rotations.json").read_text()
        if (tmp_path / "key-rotations.json").exists()
        else True
    )
    for path in files_under(tmp_path):
        assert made.value.encode() not in path.read_bytes(), path


def test_a_leaked_admin_key_is_replaced_and_revoked_in_one_step(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    add(qtbot, tab, "203.0.113.0/24", "made with the key that leaks")
    keys = open_keys(qtbot, tab)
    choose(qtbot, keys, "First admin key")
    old_value = client_of(tab.session).transport.settings.admin_key
    assert old_value is not None
    monkeypatch.setattr(QMessageBox, "warning", lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(keys.buttons["leaked_key"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: keys.new_key.made is not None, timeout=10000)
    made = keys.new_key.made
    assert made is not None
    note = keys.new_key.note.text()
    assert "is revoked" in note and "counted these requests with it" in note
    assert "this console uses it now" in note
    assert "Changes made with it" in note and "ip_allowlist.entry.created" in note
    url = embedded(tab.session).base_url
    assert status(url, old_value) == 401
    assert client_of(tab.session).transport.settings.admin_key == made.value
    profile = profile_of(tab.session)
    assert tab.session.secrets.get(profile.id, "admin_key") == made.value
    qtbot.waitUntil(
        lambda: [key.id for key in keys.model.keys if key.name == "First admin key"] == [made.key.id]
    )


def test_a_key_rotated_here_reaches_no_inspector_snippet_log_or_file(
    qtbot: QtBot, tab: SecurityTab, console: MainWindow, tmp_path: Path
) -> None:
    keys = open_keys(qtbot, tab)
    in_project(qtbot, keys)
    choose(qtbot, keys, "First project key")
    qtbot.mouseClick(keys.buttons["rotate_key"], Qt.MouseButton.LeftButton)
    dialog = keys.rotation_dialog
    assert isinstance(dialog, KeyRotationDialog)
    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.new_key.made is not None)
    made = dialog.new_key.made
    assert made is not None and client_of(console.session).transport.settings.api_key == made.value
    logging.getLogger("test").error("a careless line with %s", made.value)
    playground = console.playground
    console.tabs.setCurrentWidget(playground)
    playground.message.setPlainText("inspect me")
    playground.send()
    wait_done(qtbot, playground)
    assert playground.service.turns[0].status == "completed"  # sent with the successor
    playground.inspect(0)
    inspector = child(playground, TextTabsDialog)
    for name in ("Request", "Response headers", "Timeline"):
        assert made.value not in inspector.page_text(name) and secret_of(
            made.value
        ) not in inspector.page_text(name)
    for name, text in playground.code_snippets().items():
        assert made.value not in text and secret_of(made.value) not in text, name
    for handler in logging.getLogger().handlers:
        handler.flush()
    written = files_under(tmp_path)
    assert any(path.name == "console.log" for path in written)
    assert any(path.name == "key-rotations.json" for path in written)
    for path in written:
        content = path.read_bytes()
        assert made.value.encode() not in content and secret_of(made.value).encode() not in content, path
