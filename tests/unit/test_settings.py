"""The settings model and its file, without Qt: every option typed and bounded, a profile field declared once
kept by the file, a damaged file set aside, an older layout migrated, and two processes writing at once."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

from app.common.engine_kind import EngineKind
from app.core.profile import Profile
from app.core.settings import ConsoleFolders, ConsoleSettings, SettingsFile, model, store

ROOT = Path(__file__).resolve().parents[2]


def other_than_default(kind: Any, name: str) -> Any:
    """A value of `kind` that is not a field's default, whatever the field."""
    if kind is str:
        return f"{name}-value"
    if kind is int:
        return 42
    if kind is bool:
        return True
    if kind == list[str]:
        return [f"{name}-1", f"{name}-2"]
    if kind is EngineKind:
        return EngineKind.LOCAL
    raise AssertionError(f"a Profile field of a kind this test does not know: {kind!r}")


def test_every_profile_field_is_kept_by_the_file_with_nothing_else_to_change(tmp_path: Path) -> None:
    """README ("Settings"): a new profile field is declared once, in Profile; the file keeps it."""
    kinds = typing.get_type_hints(Profile)
    values = {f.name: other_than_default(kinds[f.name], f.name) for f in dataclasses.fields(Profile)}
    profile = Profile(**values)
    assert all(
        getattr(profile, name) != getattr(Profile("i", "n"), name)
        for name in values
        if name not in ("id", "name")
    )
    written = SettingsFile(tmp_path / "settings.json")
    written.update(lambda settings: settings.profiles.append(profile))
    assert SettingsFile(tmp_path / "settings.json").load().profiles == [profile]


def test_every_option_says_what_it_is_for() -> None:
    hints = typing.get_type_hints(ConsoleSettings)
    sections: list[type[Any]] = [
        ConsoleSettings,
        Profile,
        *(t for t in hints.values() if isinstance(t, type)),
    ]
    for section in sections:
        if not dataclasses.is_dataclass(section):
            continue
        for declared in dataclasses.fields(section):
            if not dataclasses.is_dataclass(typing.get_type_hints(section)[declared.name]):
                assert declared.metadata.get("description"), f"{section.__name__}.{declared.name}"


def test_values_of_another_kind_or_out_of_bounds_are_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps(
            {
                "current_profile": 7,
                "sandbox": {"port": 70_000},
                "security": {"refresh_seconds": 2, "entry_limit": "many", "transfer_folder": "/tmp"},
                "echo": {"enabled": "yes", "ipv4": ["https://a", 3]},
                "ui": {"tab": 1.0, "playground": [1]},
                "profiles": [
                    {"id": "p-1", "name": "One", "first_byte_wait": 0, "models": "pro", "engine": "quantum"},
                    {"name": "No id"},
                    "not a profile",
                ],
            }
        )
    )
    settings = SettingsFile(path).load()
    assert settings.current_profile == "" and settings.sandbox.port == 0
    assert settings.security.refresh_seconds == 30 and settings.security.entry_limit == 1000
    assert settings.security.transfer_folder == "/tmp"  # the good values beside the bad stay
    assert settings.echo.enabled is False and settings.echo.ipv4 == ["https://a"]
    assert settings.ui.tab == 1 and settings.ui.playground == {}
    assert settings.profiles == [Profile(id="p-1", name="One")]


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00binary", b"[1, 2]", b""])
def test_a_damaged_file_is_set_aside_and_the_console_goes_on(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    settings_file = SettingsFile(path)
    assert settings_file.load() == ConsoleSettings()
    damaged = settings_file.damaged
    assert damaged is not None and not path.exists()
    assert damaged.moved_to.read_bytes() == content  # nothing is lost
    text = damaged.explain()
    assert str(path) in text and str(damaged.moved_to) in text and "Nothing was deleted" in text
    settings_file.update(lambda settings: setattr(settings, "current_profile", "p-1"))
    assert SettingsFile(path).load().current_profile == "p-1"


def test_the_file_is_private_and_keeps_what_a_newer_console_added(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        json.dumps({"schema_version": 1, "future": {"x": 1}, "ui": {"tab": 1, "new_option": "kept"}})
    )
    SettingsFile(path).update(lambda settings: setattr(settings.ui, "conversation", "conv_1"))
    saved = json.loads(path.read_text())
    assert saved["future"] == {"x": 1} and saved["ui"]["new_option"] == "kept"
    assert saved["ui"]["conversation"] == "conv_1" and saved["ui"]["tab"] == 1
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_an_older_layout_is_migrated_when_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The path a schema change takes: version 1 is made version 2 before it is read (here a made-up 2 that
    moved the refresh interval from minutes to seconds)."""

    def one_to_two(raw: dict[str, Any]) -> dict[str, Any]:
        minutes = raw.get("security", {}).pop("refresh_minutes", None)
        if isinstance(minutes, int):
            raw.setdefault("security", {})["refresh_seconds"] = minutes * 60
        return raw

    monkeypatch.setattr(store, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(model.MIGRATIONS, 1, one_to_two)
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"schema_version": 1, "security": {"refresh_minutes": 2}}))
    settings_file = SettingsFile(path)
    assert settings_file.load().security.refresh_seconds == 120
    settings_file.update(lambda _settings: None)
    assert json.loads(path.read_text())["schema_version"] == 2


WRITER = """
import sys
from pathlib import Path
from app.core.profile import Profile
from app.core.settings import SettingsFile
settings = SettingsFile(Path(sys.argv[1]))
for n in range(int(sys.argv[3])):
    if sys.argv[2] == "profiles":
        settings.update(lambda s: s.profiles.append(Profile(id=f"p-{n}", name=f"Profile {n}")))
    else:
        settings.update(lambda s: s.echo.ipv4.append(f"https://echo-{n}"))
"""


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    """The window saving profiles while a command line changes another option: every change of both is
    in the file, since each change is a read-modify-write of the whole file under the lock."""
    path, count = tmp_path / "settings.json", 40
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), what, str(count)], env=env)
        for what in ("profiles", "echo")
    ]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0]
    settings = SettingsFile(path).load()
    assert [p.id for p in settings.profiles] == [f"p-{n}" for n in range(count)]
    assert settings.echo.ipv4[2:] == [f"https://echo-{n}" for n in range(count)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG folders are Linux's")
def test_the_folders_are_the_xdg_ones_on_linux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    folders = ConsoleFolders.for_user()
    assert folders.config == tmp_path / ".config" / "service-console"
    assert folders.data == tmp_path / ".local" / "share" / "service-console"
    assert folders.logs == tmp_path / ".local" / "state" / "service-console" / "log"
    assert folders.settings_file == tmp_path / ".config" / "service-console" / "settings.json"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    assert ConsoleFolders.for_user() == ConsoleFolders(
        tmp_path / "c" / "service-console",
        tmp_path / "d" / "service-console",
        tmp_path / "s" / "service-console" / "log",
    )
