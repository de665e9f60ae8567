"""The window's state is saved as it closes in one write of the settings file, and the next launch reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.common import fileio
from app.core.settings import store
from app.services.session.ui_state import UiState
from app.ui.main_window import MainWindow


def test_closing_the_window_writes_the_settings_once(
    console: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    console.tabs.setCurrentWidget(console.security)  # both tabs built: each has its state to save
    console.playground.options_panel.temperature.setValue(0.4)
    writes: list[Path] = []

    def counted(path: Path, text: str) -> None:
        writes.append(path)
        fileio.write_atomically(path, text)

    monkeypatch.setattr(store, "write_atomically", counted)
    console.close()
    assert writes == [console.session.profiles.settings.path]
    saved = UiState(console.session.profiles.settings)
    assert saved.tab == 1 and saved.security_scope == "" and saved.window_geometry is not None
    assert saved.playground["temperature"] == pytest.approx(0.4)
