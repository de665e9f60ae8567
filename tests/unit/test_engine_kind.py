"""The engine of a sandbox is one enum (app.common.engine_kind) from the command line to the settings file,
and the words on disk did not change: a console.ini written before the enum is migrated to the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.common.engine_kind import EngineKind
from app.core.settings import SettingsFile
from app.sandbox.cli import build_parser
from app.services.session.ini_migration import migrate_console_ini
from app.services.session.profiles import ProfileStore

# As the window wrote it before: the engine is a word, or empty, or (by hand) one this console does not know.
OLD_INI = (
    "[General]\ncurrent_profile=local-sandbox\n\n[profiles]\n"
    "1\\id=local-sandbox\n1\\kind=sandbox\n1\\name=Local sandbox\n1\\engine=local\n1\\model_file=/m.gguf\n"
    "2\\id=profile-2\n2\\kind=sandbox\n2\\name=Second\n2\\engine=simulated\n"
    "3\\id=profile-3\n3\\kind=remote\n3\\name=Remote\n3\\engine=\n"
    "4\\id=profile-4\n4\\kind=sandbox\n4\\name=By hand\n4\\engine=quantum\n"
    "5\\id=profile-5\n5\\kind=remote\n5\\name=Older still\nsize=5\n"
)
EXPECTED = [
    EngineKind.LOCAL,
    EngineKind.SIMULATED,
    EngineKind.SIMULATED,
    EngineKind.SIMULATED,
    EngineKind.SIMULATED,
]


def test_an_old_console_ini_is_migrated_in_its_words_and_read_the_same_without_qt(tmp_path: Path) -> None:
    ini = tmp_path / "console.ini"
    ini.write_text(OLD_INI, encoding="utf-8")
    settings = SettingsFile(tmp_path / "settings.json")
    assert migrate_console_ini([ini], settings) == ini
    profiles = settings.load().profiles
    assert [profile.engine for profile in profiles] == EXPECTED
    assert all(type(profile.engine) is EngineKind for profile in profiles)
    assert profiles[0].model_file == "/m.gguf"
    first = profiles[0]
    first.name = "Local sandbox, renamed"
    ProfileStore(settings).save(first)
    text = settings.path.read_text(encoding="utf-8")
    assert '"engine": "local"' in text and "EngineKind" not in text
    assert SettingsFile(settings.path).load().profiles[0].engine is EngineKind.LOCAL


def test_the_command_line_takes_the_same_words() -> None:
    parser = build_parser()
    args = parser.parse_args(["serve", "--data", "d", "--engine", "upstream"])
    assert args.engine is EngineKind.UPSTREAM
    assert parser.parse_args(["serve", "--data", "d"]).engine is EngineKind.SIMULATED


def test_the_command_line_refuses_an_engine_it_does_not_have(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--data", "d", "--engine", "quantum"])
    assert "no engine 'quantum': choose simulated, upstream, local" in capsys.readouterr().err
