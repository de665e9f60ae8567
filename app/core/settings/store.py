"""The settings file (settings.json in the config folder): read whole, changed whole, written atomically
and privately (0600), by the window and the command line alike.

Every change is a read-modify-write of the whole file under a lock file, so when the window and a command
line write at once neither loses the other's change. A file that is not JSON (a disk fault, a bad hand
edit) is moved aside with a timestamp and the console goes on with the defaults, saying so once; a value
that is not what its option declares is that option's default (app.common.options). Secrets are never here:
the keychain keeps them.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.common.file_lock import locked
from app.common.fileio import write_atomically
from app.common.options import BadValue, dump_section, read_section

from .model import MIGRATIONS, SCHEMA_VERSION, ConsoleSettings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DamagedSettings:
    """A settings file that could not be read, moved out of the way."""

    original: Path
    moved_to: Path
    problem: str

    def explain(self) -> str:
        """One paragraph for a person: what happened, what it costs, what to do."""
        return (
            f"The settings file ({self.original}) could not be read ({self.problem}). It was moved aside to "
            f"{self.moved_to} and the console started with its default settings: profiles other than the "
            "local sandbox are missing until you add them again in File > Profiles (their keys are still in "
            "the keychain). Nothing was deleted: copy what is readable back from the moved file with a text "
            "editor, or delete it once you no longer need it."
        )


class SettingsFile:
    """The one reader and writer of the settings file. `load()` gives a fresh copy to read; `update(change)`
    applies `change` to the file's current settings and writes them back, under the lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.damaged: DamagedSettings | None = None  # set when a damaged file was moved aside; shown once

    def exists(self) -> bool:
        return self.path.is_file()

    def load(self) -> ConsoleSettings:
        raw = self._read_raw()
        if raw is None:  # damaged: set aside under the lock (the other process may be doing the same)
            with locked(self.path):
                raw = self._read_raw_or_set_aside()
        return _settings_of(raw)

    def update(self, change: Callable[[ConsoleSettings], object]) -> ConsoleSettings:
        """Read the file, apply `change` to its settings, write the result; returns what was written. A change
        that leaves the file's content as it was writes nothing (each write is synced to disk)."""
        with locked(self.path):
            raw = self._read_raw_or_set_aside()
            settings = _settings_of(raw)
            change(settings)
            merged = _merged(raw, settings)
            if merged != raw:
                write_atomically(self.path, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
        return settings

    def create(self, raw: dict[str, Any]) -> bool:
        """Write settings given as JSON data (a migration's), only if there is no file yet; True if written."""
        with locked(self.path):
            if self.path.exists():
                return False
            merged = _merged({}, _settings_of(raw))
            write_atomically(self.path, json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
            return True

    def _read_raw(self) -> dict[str, Any] | None:
        """The file's JSON object; {} when there is no file (or it cannot be opened), None when damaged."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except UnicodeDecodeError:
            return None
        except OSError as error:  # unreadable (permissions): the defaults, and the file is left as it is
            log.warning("settings: %s cannot be read (%s); the defaults are used", self.path, error)
            return {}
        try:
            raw = json.loads(text)
        except ValueError:
            return None
        return raw if isinstance(raw, dict) else None

    def _read_raw_or_set_aside(self) -> dict[str, Any]:
        raw = self._read_raw()
        if raw is not None:
            return raw
        problem = _problem_of(self.path)
        moved_to = self.path.with_name(f"{self.path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        os.replace(self.path, moved_to)
        self.damaged = DamagedSettings(self.path, moved_to, problem)
        log.error("settings: %s", self.damaged.explain())
        return {}


def _merged(on_disk: dict[str, Any], settings: ConsoleSettings) -> dict[str, Any]:
    """What the file holds once `settings` are written over `on_disk`: keys this console does not declare (a
    newer one's) are kept, and sections are merged one level down."""
    settings.schema_version = SCHEMA_VERSION
    merged = dict(on_disk)
    for key, value in dump_section(settings).items():
        before = merged.get(key)
        merged[key] = {**before, **value} if isinstance(before, dict) and isinstance(value, dict) else value
    return merged


def _problem_of(path: Path) -> str:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        return "it is not text"
    except ValueError as error:
        return f"not JSON: {error}"
    except OSError as error:
        return str(error)
    return f"a JSON {type(raw).__name__}, not an object"


def _settings_of(raw: dict[str, Any]) -> ConsoleSettings:
    """The typed settings of the file's JSON, migrated from an older schema first."""
    version = raw.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, int) or isinstance(version, bool):
        version = SCHEMA_VERSION
    while version < SCHEMA_VERSION and version in MIGRATIONS:
        raw = MIGRATIONS[version](raw)
        version += 1
    try:
        return read_section(ConsoleSettings, raw)
    except BadValue as error:  # cannot happen for an object (every option has a default): be safe anyway
        log.warning("settings: %s; the defaults are used", error)
        return ConsoleSettings()
