"""File > Profiles on the Local sandbox: choose the engine and the weights file; the status bar and the model
list say which model answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QPushButton
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from tests.gui.reach import child, profile_of
from tests.local_support import require_local


def choose_engine(console: MainWindow, qtbot: QtBot, engine: str, model_file: str = "") -> None:
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    combo = child(dialog, QComboBox, "engine")
    assert combo.isVisible()
    combo.setCurrentIndex(combo.findData(engine))
    dialog.fields["model_file"].setText(model_file)
    qtbot.mouseClick(dialog.findChild(QPushButton, "save"), Qt.MouseButton.LeftButton)
    dialog.close()


def test_a_wrong_weights_file_is_said_in_the_status_bar(
    console: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    assert console.engine_label.text().startswith("Sandbox: the simulated model")
    not_weights = tmp_path / "notes.gguf"
    not_weights.write_text("these are not weights")
    choose_engine(console, qtbot, "local", str(not_weights))
    qtbot.waitUntil(lambda: "cannot run" in console.engine_label.text(), timeout=20_000)
    assert console.session.profile is not None and profile_of(console.session).engine == "local"
    # Back to the simulated model: the sandbox restarts on the same port and answers again.
    port = console.session.sandbox.port
    choose_engine(console, qtbot, "simulated")
    qtbot.waitUntil(lambda: console.engine_label.text().startswith("Sandbox: the simulated model"))
    qtbot.waitUntil(lambda: console.session.state == "ok", timeout=10_000)
    assert console.session.sandbox.port == port


def test_a_missing_weights_file_is_refused_before_saving(
    console: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    combo = child(dialog, QComboBox, "engine")
    combo.setCurrentIndex(combo.findData("local"))
    dialog.fields["model_file"].setText(str(tmp_path / "missing.gguf"))
    assert not dialog.save()
    assert "is not a file" in dialog.result_label.text()


@pytest.mark.local
def test_the_real_weights_are_named_in_the_status_bar_and_the_model_list(
    console: MainWindow, qtbot: QtBot, request: pytest.FixtureRequest
) -> None:
    require_local(request)
    choose_engine(console, qtbot, "local")
    qtbot.waitUntil(lambda: "Sandbox: local model" in console.engine_label.text(), timeout=120_000)
    assert ".gguf" in console.engine_label.text() and "MB" in console.engine_label.text()
    combo = console.playground.model
    qtbot.waitUntil(lambda: ".gguf" in combo.itemData(0, Qt.ItemDataRole.ToolTipRole), timeout=20_000)
