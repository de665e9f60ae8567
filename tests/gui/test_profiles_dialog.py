"""File > Profiles: the keychain sentence is shown whole, and path fields have a Browse button."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QFileDialog, QToolButton
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from tests.gui.reach import child


def test_browse_fills_the_path_field(console: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    bundle = tmp_path / "company-ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    for name in ("ca_bundle", "client_cert", "client_key"):
        assert dialog.findChild(QToolButton, f"browse_{name}") is not None
    dialog.fields["ca_bundle"].setText(str(tmp_path / "old.pem"))  # the picker starts where the path points
    qtbot.mouseClick(dialog.findChild(QToolButton, "browse_ca_bundle"), Qt.MouseButton.LeftButton)
    picker = dialog.findChild(QFileDialog)
    assert picker is not None and Path(picker.directory().absolutePath()) == tmp_path
    picker.selectFile(str(bundle))
    picker.accept()
    assert dialog.fields["ca_bundle"].text() == str(bundle)


def test_the_keychain_sentence_is_not_clipped(console: MainWindow, qtbot: QtBot) -> None:
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    dialog.resize(640, 480)
    qtbot.waitExposed(dialog)
    where = dialog.where
    assert "Secrets:" in where.text()
    assert where.height() >= where.heightForWidth(where.width())


def test_a_new_profile_starts_empty_and_its_edits_survive_a_refused_keychain(
    console: MainWindow, qtbot: QtBot
) -> None:
    from keyring.backends.fail import Keyring as FailKeyring
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton

    from app.common.secrets import SecretStore

    session = console.session
    dialog = console.open_settings()
    qtbot.mouseClick(dialog.findChild(QPushButton, "add_profile"), Qt.MouseButton.LeftButton)
    fields = dialog.fields
    assert fields["name"].text() == "" and fields["base_url"].text() == ""  # examples are placeholders
    assert fields["base_url"].placeholderText() == "https://api.example.com/v1"
    assert [p.name for p in session.profiles.all()] == ["Local sandbox"]  # a draft until saved
    qtbot.keyClicks(fields["name"], "Hosted")
    qtbot.keyClicks(fields["base_url"], "https://api.example.org/v1")
    qtbot.keyClicks(fields["api_key"], "sk-proj_typed-key-value-123")
    session.secrets = SecretStore(FailKeyring())  # no keychain here...
    session.ask_session_only = lambda _message: False  # ...and the person answers No to "this session only?"
    qtbot.mouseClick(dialog.findChild(QPushButton, "save"), Qt.MouseButton.LeftButton)
    assert "Profile saved" in dialog.result_label.text() and "API key not saved" in dialog.result_label.text()
    assert fields["name"].text() == "Hosted" and fields["base_url"].text() == "https://api.example.org/v1"
    assert fields["api_key"].text() == "sk-proj_typed-key-value-123"  # kept, to save again
    saved = next(p for p in session.profiles.all() if p.name == "Hosted")
    assert saved.base_url == "https://api.example.org/v1"
    assert dialog.list.currentItem().text() == "Hosted"
    box = child(console, QComboBox, "profile_box")
    names = [box.itemText(i) for i in range(box.count())]
    assert "Hosted" in names and not any(name.startswith("New profile") for name in names)


def test_a_draft_closed_unsaved_leaves_nothing(console: MainWindow, qtbot: QtBot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton

    dialog = console.open_settings()
    qtbot.mouseClick(dialog.findChild(QPushButton, "add_profile"), Qt.MouseButton.LeftButton)
    assert dialog.list.currentItem().text() == "New profile (not saved)"
    dialog.reject()
    assert [p.name for p in console.session.profiles.all()] == ["Local sandbox"]


def test_websocket_mode_is_a_box_off_by_default_that_save_keeps(console: MainWindow, qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QCheckBox, QPushButton

    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    box = dialog.findChild(QCheckBox, "websocket_mode")
    assert box is not None and box.text() == "Use WebSocket mode for responses"
    assert not box.isChecked()
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.findChild(QPushButton, "save"), Qt.MouseButton.LeftButton)
    profile = console.session.profiles.get(console.session.profiles.current_id())
    assert profile is not None and profile.websocket_mode
    dialog.reload()
    assert box.isChecked()
