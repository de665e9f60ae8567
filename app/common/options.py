"""Options declared once, as qutebrowser declares its settings: a dataclass field whose annotation is the
type and whose `option(...)` gives the default, the bounds and a one-line description. `read_section` builds
such a dataclass from the JSON a settings file holds, tolerantly: a value of the wrong type or out of bounds
is the default (and logged), never an error, since the file can be hand-edited, old or from a newer console.

Written without pydantic on purpose: the window reads its settings before its first frame, and pydantic
costs that frame 50-100 ms (tests/gui/test_launch_imports.py keeps it out until the first answer).
"""

from __future__ import annotations

import dataclasses
import logging
import math
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


class BadValue(ValueError):
    """A value the declaration refuses: of another type, out of bounds, or a required one missing."""


def option(
    default: Any = dataclasses.MISSING,
    description: str = "",
    *,
    factory: Callable[[], Any] | None = None,
    minimum: float | None = None,
    maximum: float | None = None,
    max_length: int | None = None,
) -> Any:
    """One option: its default (or `factory` for a list or a dict), bounds for a number, a length limit
    for text or a list, and the line that says what it is for."""
    metadata = {"description": description, "minimum": minimum, "maximum": maximum, "max_length": max_length}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def described(description: str) -> dict[str, Any]:
    """The metadata of a required option (one without a default), declared with `dataclasses.field`."""
    return {"description": description}


def _number(kind: type, value: Any, meta: typing.Mapping[str, Any]) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValue(f"{value!r} is not a number")
    if kind is int and not (isinstance(value, int) or float(value).is_integer()):
        raise BadValue(f"{value!r} is not a whole number")
    if not math.isfinite(value):
        raise BadValue(f"{value!r} is not finite")
    low, high = meta.get("minimum"), meta.get("maximum")
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadValue(
            f"{value!r} is outside {low if low is not None else '…'}–{high if high is not None else '…'}"
        )
    return int(value) if kind is int else float(value)


def read_value(kind: Any, value: Any, meta: typing.Mapping[str, Any] | None = None) -> Any:
    """`value` as the declared `kind` (an annotation); BadValue when it cannot be one."""
    meta = meta or {}
    origin = typing.get_origin(kind)
    if origin in (types.UnionType, typing.Union):  # `int | None`: None, or the other kind
        if value is None:
            return None
        others = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        return read_value(others[0], value, meta)
    if kind is Any:
        return value
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        return read_section(kind, value)
    if origin is list:
        if not isinstance(value, list):
            raise BadValue(f"{value!r} is not a list")
        (item,) = typing.get_args(kind)
        limit = meta.get("max_length")
        if limit is not None and len(value) > limit:
            raise BadValue(f"a list of {len(value)} (at most {limit})")
        kept = []
        for element in value:
            try:
                kept.append(read_value(item, element))
            except BadValue as error:  # one bad item (a profile without an id): the others stay
                log.warning("settings: an item left out: %s", error)
        return kept
    if origin is dict:
        if not isinstance(value, dict):
            raise BadValue(f"{value!r} is not a mapping")
        return dict(value)
    if isinstance(kind, type) and issubclass(kind, Enum):
        reader = getattr(kind, "read", None)  # an enum's own tolerant reader (EngineKind), else its values
        if reader is not None:
            return reader(value)
        try:
            return kind(value)
        except ValueError as error:
            raise BadValue(str(error)) from None
    if kind is bool:
        if not isinstance(value, bool):
            raise BadValue(f"{value!r} is not true or false")
        return value
    if kind in (int, float):
        return _number(kind, value, meta)
    if kind is str:
        if not isinstance(value, str):
            raise BadValue(f"{value!r} is not text")
        limit = meta.get("max_length")
        if limit is not None and len(value) > limit:
            raise BadValue(f"a text of {len(value)} characters (at most {limit})")
        return value
    raise TypeError(f"no reader for options of type {kind!r}")  # a declaration this module cannot read


_HINTS: dict[type, dict[str, Any]] = {}  # a section's resolved annotations, resolved once


def _hints(section: type) -> dict[str, Any]:
    if section not in _HINTS:
        _HINTS[section] = typing.get_type_hints(section)
    return _HINTS[section]


def read_section(section: type[T], raw: Any) -> T:
    """A section from its JSON object: each declared option read, the default where it is missing or bad.
    BadValue only when `raw` is not an object or a required option (one without a default) is unusable."""
    if not isinstance(raw, dict):
        raise BadValue(f"{section.__name__}: {raw!r} is not an object")
    hints = _hints(section)
    values: dict[str, Any] = {}
    for declared in dataclasses.fields(section):  # type: ignore[arg-type]  # a dataclass, as documented
        if declared.name not in raw:
            continue
        try:
            values[declared.name] = read_value(hints[declared.name], raw[declared.name], declared.metadata)
        except BadValue as error:
            required = (
                declared.default is dataclasses.MISSING and declared.default_factory is dataclasses.MISSING
            )
            if required:
                raise BadValue(f"{section.__name__}.{declared.name}: {error}") from None
            log.warning("settings: %s.%s: %s; its default is used", section.__name__, declared.name, error)
    try:
        return section(**values)
    except TypeError as error:  # a required option missing
        raise BadValue(f"{section.__name__}: {error}") from None


def plain(value: Any) -> Any:
    """A section or a value as JSON-ready data: nested sections as objects, enums as their words."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    return value


def dump_section(section: Any) -> dict[str, Any]:
    """A section as the JSON object the settings file keeps."""
    dumped = plain(section)
    assert isinstance(dumped, dict)
    return dumped
