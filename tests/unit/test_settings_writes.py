"""The settings file is written only when its content changes: each write is synced to disk."""

from __future__ import annotations

from pathlib import Path

from app.core.settings import SettingsFile


def test_a_change_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    settings = SettingsFile(tmp_path / "settings.json")
    settings.update(lambda changed: setattr(changed.ui, "tab", 2))
    written = settings.path.stat()  # each write is a new file renamed over the old one
    settings.update(lambda changed: setattr(changed.ui, "tab", 2))
    settings.update(lambda _changed: None)
    kept = settings.path.stat()
    assert (kept.st_ino, kept.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    settings.update(lambda changed: setattr(changed.ui, "tab", 3))
    assert settings.path.stat().st_ino != written.st_ino
    assert settings.load().ui.tab == 3
