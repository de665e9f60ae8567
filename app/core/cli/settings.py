"""`service-console settings ...`: the console's settings from a terminal, read and changed through the same
model and file as the window (app.core.settings), so a change made in either is seen by the other.

    service-console settings show [KEY]          the settings (or one of them) as JSON
    service-console settings set KEY VALUE       change one; VALUE is JSON, or else text
    service-console settings options             every option: its key, type, default and what it is for

KEY names an option by its section: `security.refresh_seconds`, `echo.enabled`, `current_profile`.
Profiles are changed in File > Profiles; `show profiles` lists them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing
from pathlib import Path
from typing import Any

from app.common.options import BadValue, dump_section, plain, read_value
from app.core.settings import ConsoleFolders, ConsoleSettings, SettingsFile

from .outcome import Exit

READ_ONLY = ("schema_version", "profiles")  # the file's layout; profiles go through File > Profiles


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console settings",
        description="The console's settings (the window's own file): show them, change one, list them all.",
    )
    made.add_argument("command", choices=("show", "set", "options"))
    made.add_argument("key", nargs="?", help="an option, as security.refresh_seconds or current_profile")
    made.add_argument("value", nargs="?", help='set: the new value, as JSON (60, true, ["a"]) or text')
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    return made


def options() -> list[tuple[str, Any, dataclasses.Field[Any]]]:
    """Every option the model declares: its dotted key, its type and its field (default, description)."""
    found: list[tuple[str, Any, dataclasses.Field[Any]]] = []
    hints = typing.get_type_hints(ConsoleSettings)
    for top in dataclasses.fields(ConsoleSettings):
        kind = hints[top.name]
        if dataclasses.is_dataclass(kind) and isinstance(kind, type):
            inner = typing.get_type_hints(kind)
            found += [(f"{top.name}.{f.name}", inner[f.name], f) for f in dataclasses.fields(kind)]
        else:
            found.append((top.name, kind, top))
    return found


def _default(declared: dataclasses.Field[Any]) -> Any:
    if declared.default_factory is not dataclasses.MISSING:
        return declared.default_factory()
    return declared.default


def _find(key: str) -> tuple[Any, dataclasses.Field[Any]]:
    for name, kind, declared in options():
        if name == key:
            return kind, declared
    raise KeyError(key)


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    folders = ConsoleFolders.under(args.home) if args.home else ConsoleFolders.for_user()
    store = SettingsFile(folders.settings_file)
    if args.command == "options":
        for name, kind, declared in options():
            shown = json.dumps(plain(_default(declared)))
            print(f"{name} ({_type_name(kind)}, default {shown}): {declared.metadata.get('description', '')}")
        return int(Exit.DONE)
    if args.command == "show":
        return _show(store, args.key)
    if not args.key or args.value is None:
        return _fail("set: name an option and its new value.")
    if args.key in READ_ONLY:
        return _fail(f"{args.key} is not set from here (profiles: File > Profiles in the console).")
    try:
        kind, declared = _find(args.key)
    except KeyError:
        return _fail(f"No option “{args.key}” (service-console settings options: all of them).")
    try:
        given = json.loads(args.value)
    except json.JSONDecodeError:
        given = args.value  # plain text: a folder, a profile id
    try:
        checked = read_value(kind, given, declared.metadata)
    except BadValue as error:
        return _fail(f"{args.key}: {error}.")
    section, _, name = args.key.rpartition(".")

    def change(settings: ConsoleSettings) -> None:
        setattr(getattr(settings, section) if section else settings, name, checked)

    store.update(change)
    _say_damage(store)
    print(f"{args.key} = {json.dumps(plain(checked), ensure_ascii=False)}")
    return int(Exit.DONE)


def _show(store: SettingsFile, key: str | None) -> int:
    value: Any = dump_section(store.load())
    _say_damage(store)
    for part in key.split(".") if key else ():
        if not isinstance(value, dict) or part not in value:
            return _fail(f"No option “{key}” (service-console settings options: all of them).")
        value = value[part]
    print(json.dumps(value, indent=2, ensure_ascii=False))
    return int(Exit.DONE)


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", str(kind)) if typing.get_origin(kind) is None else str(kind)


def _say_damage(store: SettingsFile) -> None:
    if store.damaged is not None:
        print(f"warning: {store.damaged.explain()}", file=sys.stderr)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return int(Exit.USAGE)
