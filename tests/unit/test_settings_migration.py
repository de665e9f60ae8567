"""console.ini, as the console wrote it through QSettings before the settings file, migrated once at the first
launch after it: every value kept, every profile with every field; the folders as Qt found them on Linux; and
no QSettings left anywhere else."""

from __future__ import annotations

import base64
import json
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from app.bootstrap import Paths, make_settings
from app.common.engine_kind import EngineKind
from app.core.profile import Profile
from app.core.settings import ConsoleFolders

ROOT = Path(__file__).resolve().parents[2]
GEOMETRY = b"\x01\xd9\xd0\xcb\x00\x03geometry"
PLAYGROUND = {"model": "service-think", "temperature": 0.3, "structured": True}
PROFILES = [
    Profile(
        id="local-sandbox",
        name="Local sandbox",
        kind="sandbox",
        simulated_ip="198.51.100.7",
        engine=EngineKind.LOCAL,
        model_file="/m.gguf",
    ),
    Profile(
        id="profile-1",
        name='Prod, EU "main" é',
        base_url="https://api.example/v1",
        org_id="org_1",
        project_id="proj_1",
        brand="acme",
        models=["acme-pro"],
        ca_bundle="/ca.pem",
        client_cert="/c.pem",
        client_key="/k.pem",
        proxy="http://bob@proxy:3128",
        first_byte_wait=120,
    ),
    Profile(id="profile-2", name="Two models", models=["a", "b"]),
]


def write_as_the_earlier_console(ini: Path) -> None:
    """What ProfileStore, UiState, the Security tab, the echo services and the embedded sandbox wrote."""
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    old.beginWriteArray("profiles", len(PROFILES))
    for index, profile in enumerate(PROFILES):
        old.setArrayIndex(index)
        for key, value in asdict(profile).items():
            old.setValue(key, str(value) if isinstance(value, EngineKind) else value)
    old.endArray()
    old.setValue("current_profile", "profile-1")
    old.setValue("sandbox/port", 45123)
    old.setValue("ui/window_geometry", QByteArray(GEOMETRY))
    old.setValue("ui/tab", 1)
    old.setValue("ui/playground", json.dumps(PLAYGROUND))
    old.setValue("ui/conversation", "conv_7")
    old.setValue("ui/security_scope", "proj_1")
    old.setValue("security/refresh_seconds", 45)
    old.setValue("security/entry_limit", 500)
    old.setValue("security/transfer_folder", "/home/admin/exports")
    old.setValue("echo/enabled", True)
    old.setValue("echo/ipv4", ["https://v4.example"])
    old.setValue("echo/ipv6", ["https://v6.example", "https://v6b.example"])
    old.sync()


def test_console_ini_is_migrated_once_with_every_value(tmp_path: Path) -> None:
    paths = Paths.under(tmp_path)
    paths.config.mkdir(parents=True)
    ini = paths.config / "console.ini"
    write_as_the_earlier_console(ini)
    settings = make_settings(paths).load()
    assert settings.profiles == PROFILES
    assert settings.current_profile == "profile-1" and settings.sandbox.port == 45123
    assert base64.b64decode(settings.ui.window_geometry) == GEOMETRY
    assert (settings.ui.tab, settings.ui.conversation, settings.ui.security_scope) == (1, "conv_7", "proj_1")
    assert settings.ui.playground == PLAYGROUND
    assert (settings.security.refresh_seconds, settings.security.entry_limit) == (45, 500)
    assert settings.security.transfer_folder == "/home/admin/exports"
    assert settings.echo.enabled is True and settings.echo.ipv4 == ["https://v4.example"]
    assert settings.echo.ipv6 == ["https://v6.example", "https://v6b.example"]
    assert not ini.exists() and (paths.config / "console.ini.migrated").is_file()
    # Read once: a console.ini that appears later (an older console run again) is not read over the file.
    write_as_the_earlier_console(ini)
    again = make_settings(paths)
    again.update(lambda saved: setattr(saved, "current_profile", "local-sandbox"))
    assert make_settings(paths).load().current_profile == "local-sandbox" and ini.is_file()


def test_a_proxy_password_of_an_older_console_ini_is_not_left_in_the_migrated_file(tmp_path: Path) -> None:
    paths = Paths.under(tmp_path)
    paths.config.mkdir(parents=True)
    old = QSettings(str(paths.config / "console.ini"), QSettings.Format.IniFormat)
    old.beginWriteArray("profiles", 2)
    for index, proxy in enumerate(("http://bob:hunter2@p:3128", "socks5://q:1080")):
        old.setArrayIndex(index)
        old.setValue("id", f"p-{index}")
        old.setValue("name", f"Profile {index}")
        old.setValue("proxy", proxy)
    old.endArray()
    old.sync()
    settings = make_settings(paths).load()
    assert [p.proxy for p in settings.profiles] == ["http://bob:hunter2@p:3128", "socks5://q:1080"]
    left = (paths.config / "console.ini.migrated").read_text()
    assert "hunter2" not in left and "bob@p:3128" in left and "socks5://q:1080" in left


def test_a_console_ini_with_nothing_in_it_gives_the_defaults(tmp_path: Path) -> None:
    paths = Paths.under(tmp_path)
    paths.config.mkdir(parents=True)
    (paths.config / "console.ini").write_text("[General]\n")
    settings = make_settings(paths)
    assert settings.load().profiles == [] and settings.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the same as Qt's on Linux; others: README")
def test_the_folders_are_where_qt_put_them_on_linux(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    where = QStandardPaths.StandardLocation

    def qt(kind: QStandardPaths.StandardLocation) -> Path:
        return Path(QStandardPaths.writableLocation(kind)) / "service-console"

    folders = ConsoleFolders.for_user()
    assert folders.config == qt(where.GenericConfigLocation) == tmp_path / ".config" / "service-console"
    assert folders.data == qt(where.GenericDataLocation)
    assert folders.logs == qt(where.GenericStateLocation) / "log"


def test_no_settings_are_read_or_written_through_qsettings_but_the_migration() -> None:
    users = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "app").rglob("*.py")
        if "QSettings" in path.read_text()
    )
    assert users == ["app/services/session/ini_migration.py"]
