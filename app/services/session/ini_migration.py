"""console.ini, the settings file of earlier versions (QSettings' INI format), read once to make the settings
file, then renamed console.ini.migrated and never read again. Read through QSettings itself, so that every
quirk of its format (arrays, quoting, lists, @ByteArray) is read as it was written, and only here: the
command line reads the new file alone.

Each option is looked up under the key today's model gives it (`section/name`, `profiles/N/name`), so a
value is carried over for every option the model declares."""

from __future__ import annotations

import dataclasses
import json
import logging
import typing
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from app.common.private import tighten
from app.common.proxy_url import BadProxyUrl, parse_proxy_url
from app.core.profile import Profile
from app.core.settings import ConsoleFolders, ConsoleSettings, SettingsFile
from app.core.settings.folders import LEGACY_SETTINGS_NAME, ORG_NAME

log = logging.getLogger(__name__)
SECTIONS = ("sandbox", "security", "echo", "ui")


def legacy_files(folders: ConsoleFolders) -> list[Path]:
    """Where console.ini may be: beside the new file, or (the user's folders) where QStandardPaths put it,
    which on macOS is ~/Library/Preferences rather than platformdirs' ~/Library/Application Support."""
    places = [folders.legacy_settings_file]
    if folders == ConsoleFolders.for_user():
        qt_config = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericConfigLocation)
        places.append(Path(qt_config) / ORG_NAME / LEGACY_SETTINGS_NAME)
    return places


def migrate_console_ini(candidates: list[Path], settings: SettingsFile) -> Path | None:
    """Make the settings file from the first console.ini found, if there is no settings file yet; returns
    the console.ini migrated (renamed .migrated), or None when there was nothing to do."""
    if settings.exists():
        return None
    ini = next((path for path in candidates if path.is_file()), None)
    if ini is None:
        return None
    raw = read_console_ini(ini)
    if not settings.create(raw):
        return None  # the command line or another window made it first: theirs stands
    moved = ini.with_name(f"{ini.name}.migrated")
    try:
        ini.replace(moved)
        tighten(moved)  # an older version left it 0644
        _drop_proxy_passwords(moved)
    except OSError as error:  # read-only folder: the new file is made, the old one is simply not read again
        log.warning("console.ini could not be renamed after its migration: %s", error)
    log.info("Settings migrated from %s to %s", ini, settings.path)
    return ini


def _drop_proxy_passwords(ini: Path) -> None:
    """A console.ini from before the keychain kept proxy passwords holds `http://user:pass@…`; the settings
    file has it now (and the session moves it to the keychain), so the file left behind keeps no password."""
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    proxies = []
    for index in range(old.beginReadArray("profiles")):
        old.setArrayIndex(index)
        proxies.append(str(old.value("proxy") or ""))
    old.endArray()
    for index, proxy in enumerate(proxies):
        try:
            parsed = parse_proxy_url(proxy) if proxy.strip() else None
        except BadProxyUrl:
            continue
        if parsed is not None and parsed.password:  # QSettings numbers an array's items from 1 in its keys
            old.setValue(f"profiles/{index + 1}/proxy", parsed.public)
    old.sync()


def read_console_ini(ini: Path) -> dict[str, Any]:
    """console.ini's values as the settings file's JSON, each in its option's type where it can be."""
    old = QSettings(str(ini), QSettings.Format.IniFormat)
    hints = typing.get_type_hints(ConsoleSettings)
    raw: dict[str, Any] = {}
    if old.contains("current_profile"):
        raw["current_profile"] = _plain(str, old.value("current_profile"))
    for section in SECTIONS:
        kind = hints[section]
        raw[section] = {
            f.name: _plain(typing.get_type_hints(kind)[f.name], old.value(f"{section}/{f.name}"))
            for f in dataclasses.fields(kind)
            if old.contains(f"{section}/{f.name}")
        }
    profile_kinds = typing.get_type_hints(Profile)
    profiles = []
    for index in range(old.beginReadArray("profiles")):
        old.setArrayIndex(index)
        profiles.append(
            {
                key: _plain(profile_kinds[key], old.value(key))
                for key in old.childKeys()
                if key in profile_kinds
            }
        )
    old.endArray()
    raw["profiles"] = profiles
    return raw


def _plain(kind: Any, value: Any) -> Any:
    """A QSettings INI value (text for every scalar) as JSON data of the declared kind; left as it is when
    it is not one, for the model's reader to turn into the option's default."""
    if isinstance(value, QByteArray):  # the window's geometry
        return bytes(value.toBase64().data()).decode("ascii")
    if value is None:
        return None
    origin = typing.get_origin(kind)
    if origin is list:  # QSettings gives a one-item list back as plain text, and an empty one as None
        return [str(item) for item in value] if isinstance(value, list) else [str(value)]
    if origin is dict:
        try:
            return json.loads(str(value))  # the Playground's options, kept as JSON text in the INI file
        except json.JSONDecodeError:
            return None
    text = str(value)
    if kind is bool:
        return {"true": True, "false": False}.get(text.lower(), text)
    if kind is int:
        return int(text) if text.lstrip("-").isdigit() else text
    return text
