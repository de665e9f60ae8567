"""The window on a settings file that is not JSON: it opens on the defaults, says once on screen where the
damaged file went, and keeps it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pytestqt.qtbot import QtBot

from tests.gui.test_playground_conversations import close_console, open_console


def test_a_damaged_settings_file_is_set_aside_and_said_on_screen(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    settings_file = tmp_path / "config" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_bytes(b'{"profiles": [{"id": "p-1", "name": "Half-wri')
    window = open_console(qtbot, tmp_path)
    text = window.notice.label.text()
    assert "The settings file" in text and "could not be read" in text and "Nothing was deleted" in text
    moved = list(settings_file.parent.glob("settings.json.damaged-*"))
    assert len(moved) == 1 and moved[0].read_bytes().startswith(b'{"profiles"')
    assert window.session.profile is not None and window.session.profile.is_sandbox  # the defaults
    assert window.session.profiles.settings.damaged is None  # said once
    close_console(qtbot, window)
