"""The lockout hint is the exact command, with the embedded sandbox's real data folder, and it works."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.sandbox.store.database import run_blocking
from app.ui.security.tab import SecurityTab
from tests.gui.reach import profile_of


def test_the_recovery_command_is_exact_copyable_and_works(tab: SecurityTab, qtbot: QtBot) -> None:
    recovery = tab.recovery
    command = recovery.command.text()
    data_dir = tab.session.sandbox.data_dir
    assert recovery.command.isVisible() and "DIR" not in command
    assert shlex.split(command)[-2:] == ["--data", str(data_dir)]
    qtbot.mouseClick(recovery.copy, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == command

    store = tab.session.sandbox.start().store
    org_id = profile_of(tab.session).org_id
    run_blocking(
        store.allowlists.set_enabled("organization", org_id, True)
    )  # locked out: the list on, with no entry for anyone
    result = subprocess.run(
        shlex.split(command),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr
    assert "disabled" in result.stdout
    assert not store.allowlists.get("organization", org_id).enabled
