"""The settings file is written only when its content changes, and once for what changes together: each
write is synced to disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.common import fileio
from app.core.profile import SANDBOX_ID, Profile
from app.core.settings import SettingsFile, store
from app.services.session.profiles import ProfileStore


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


def writes_of(settings: SettingsFile, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record each write of the settings file (each one synced to disk)."""
    written: list[Path] = []
    real = fileio.write_atomically

    def counted(path: Path, text: str, mode: int = 0o600) -> None:
        written.append(path)
        real(path, text, mode=mode)

    monkeypatch.setattr(store, "write_atomically", counted)
    return written


def test_a_first_launch_writes_its_sandbox_profile_once(
    tmp_path: Path, qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Local sandbox profile, made and made current, in one write; asked again, nothing to write."""
    settings = SettingsFile(tmp_path / "settings.json")
    profiles = ProfileStore(settings)
    changes: list[None] = []
    profiles.changed.connect(lambda: changes.append(None))
    written = writes_of(settings, monkeypatch)
    made = profiles.ensure_sandbox_profile()
    assert len(written) == 1 and len(changes) == 1
    assert made.id == SANDBOX_ID and made.is_sandbox and profiles.current_id() == SANDBOX_ID
    assert [p.id for p in profiles.all()] == [SANDBOX_ID]
    assert profiles.ensure_sandbox_profile() == made
    profiles.set_current(SANDBOX_ID)  # as each activation does
    assert len(written) == 1 and len(changes) == 1


def test_the_sandbox_profile_is_made_current_when_the_current_one_is_gone(
    tmp_path: Path, qapp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = SettingsFile(tmp_path / "settings.json")
    profiles = ProfileStore(settings)
    profiles.save(Profile(id="p1", name="Hosted"))
    profiles.ensure_sandbox_profile()
    profiles.set_current("p1")
    assert profiles.current_id() == "p1"
    assert profiles.ensure_sandbox_profile().id == SANDBOX_ID
    assert profiles.current_id() == "p1"  # a current profile that exists stays current
    settings.update(lambda changed: setattr(changed, "current_profile", "gone"))
    written = writes_of(settings, monkeypatch)
    profiles.ensure_sandbox_profile()
    assert profiles.current_id() == SANDBOX_ID and len(written) == 1
    assert [p.id for p in profiles.all()] == ["p1", SANDBOX_ID]
