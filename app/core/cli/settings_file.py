"""The console's settings file (console.ini) read without Qt: its profiles and the embedded sandbox's port.

The window writes it through QSettings in its INI format. No library reads that format, and the command line
must not load Qt (~0.2 s) to read a few lines, so this reads the part it needs by hand: the `profiles`
array (`N\\key=value`, `size=`), quoted values with backslash escapes, `@Invalid()` for "no value", and lists
written as comma-separated words.
"""

from __future__ import annotations

import configparser
import os
import sys
from dataclasses import dataclass, fields
from pathlib import Path

from app.common.engine_kind import EngineKind
from app.core.profile import Profile

ORG_NAME = "service-console"  # the folder name under the user's config and data directories (as the window)
_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b"}


@dataclass(frozen=True)
class ConsoleFolders:
    """Where the window keeps its settings and data (the `--home` layout, or the user's directories)."""

    config: Path
    data: Path

    @classmethod
    def under(cls, home: Path) -> ConsoleFolders:
        return cls(home / "config", home / "data")

    @classmethod
    def for_user(cls) -> ConsoleFolders:
        """Qt's generic config and data locations, as the window's QStandardPaths finds them."""
        home = Path.home()
        if sys.platform == "win32":
            local = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
            return cls(local / ORG_NAME, local / ORG_NAME)
        if sys.platform == "darwin":
            return cls(
                home / "Library" / "Preferences" / ORG_NAME,
                home / "Library" / "Application Support" / ORG_NAME,
            )
        config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
        data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
        return cls(config / ORG_NAME, data / ORG_NAME)

    @property
    def settings_file(self) -> Path:
        return self.config / "console.ini"

    @property
    def sandbox_data(self) -> Path:
        return self.data / "sandbox"


def _value(raw: str) -> str | list[str] | None:
    """One QSettings INI value: a quoted string, `@Invalid()`, a comma-separated list, or plain text."""
    raw = raw.strip()
    if raw == "@Invalid()":
        return None
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        out, chars = [], iter(raw[1:-1])
        for char in chars:
            if char != "\\":
                out.append(char)
                continue
            code = next(chars, "")
            if code == "x":  # \xHHHH: a UTF-16 unit
                digits = "".join(next(chars, "") for _ in range(4))
                out.append(chr(int(digits, 16)) if digits else "")
            else:
                out.append(_ESCAPES.get(code, code))
        return "".join(out)
    if ", " in raw:
        return raw.split(", ")
    return raw


@dataclass(frozen=True)
class ConsoleSettings:
    profiles: tuple[Profile, ...] = ()
    current_profile: str = ""
    sandbox_port: int = 0

    def find(self, name_or_id: str) -> Profile | None:
        """A profile by its name (as File > Profiles shows it, case ignored) or its id."""
        wanted = name_or_id.strip().casefold()
        return next(
            (p for p in self.profiles if p.id == name_or_id or p.name.casefold() == wanted),
            None,
        )


class _CaseKeepingParser(configparser.RawConfigParser):
    """Keys keep their case (QSettings' are case-sensitive; configparser lowers them by default)."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def read_settings(path: Path) -> ConsoleSettings:
    """The profiles and the sandbox's port; an empty result when the file is missing or unreadable."""
    parser = _CaseKeepingParser(strict=False, interpolation=None, delimiters=("=",))
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error):
        return ConsoleSettings()
    names = {f.name for f in fields(Profile)}
    rows: dict[int, dict[str, str | list[str]]] = {}
    if parser.has_section("profiles"):
        for key, raw in parser.items("profiles"):
            number, _, name = key.partition("\\")
            value = _value(raw)
            if number.isdigit() and name in names and value is not None:
                rows.setdefault(int(number), {})[name] = value
    profiles = []
    for _number, values in sorted(rows.items()):
        models = values.pop("models", [])
        wait = str(values.pop("first_byte_wait", "300"))
        flat = {k: (v if isinstance(v, str) else ", ".join(v)) for k, v in values.items()}
        if "id" in flat and "name" in flat:
            listed = [models] if isinstance(models, str) else list(models)
            seconds = int(wait) if wait.isdigit() and 1 <= int(wait) <= 3600 else 300
            engine = EngineKind.read(flat.pop("engine", None))
            profiles.append(Profile(**flat, engine=engine, models=listed, first_byte_wait=seconds))
    current = parser.get("General", "current_profile", fallback="") or ""
    port = parser.get("sandbox", "port", fallback="0") or "0"
    return ConsoleSettings(tuple(profiles), str(_value(current) or ""), int(port) if port.isdigit() else 0)
