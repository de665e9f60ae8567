"""File > Profiles: the keychain sentence is shown whole, and path fields have a Browse button."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QToolButton
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow


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
