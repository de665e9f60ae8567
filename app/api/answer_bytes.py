"""Models parsed from an answer's bytes (pydantic's `model_validate_json`: no `json.loads` dict in between);
a long list's answer on a worker thread, in slices, so that the event loop's thread (the GUI's) is never
held for long.

Why slices: the GIL passes between threads only between Python steps, and one `model_validate_json` of a
100,000-entry list (19 MB) is one call of ~0.3 s, which would hold the GUI thread for all of it. Each slice
holds a few hundred kilobytes of the list's items, a few milliseconds of work. The cuts are made at `},{`
between two items without reading the JSON; a cut that falls inside a string or a nested object leaves a
slice that is not valid JSON, so whenever any slice fails, the whole answer is parsed again in one call,
which either gives the list or the error naming the field (the slices only ever save time).

The items are read by msgspec into the field's own type (a dataclass: Entry), three times faster than
pydantic makes them. msgspec is stricter than pydantic's lax mode (no null for a string, no 1 for true, no
1.0 for an int) and never more tolerant, so what it reads pydantic would read the same; a slice it refuses
is given to pydantic, which reads it its way or names the field that is wrong.

The cyclic garbage collector is paused while the items are made, and they are frozen out of its later
passes (as the launch freezes its own objects, see app.__main__): 100,000 entries are 300,000 tracked objects
that never form a cycle (each is freed when the list is), which set off dozens of collections during the parse
(half of its time), and any later pass that walked them would hold every thread for ~0.1 s.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar, get_args

import msgspec
from pydantic import TypeAdapter, ValidationError

from .errors import InvalidResponse
from .wire import WireModel, problem

# Past this many bytes (~1,000 entries, a few ms to parse), an answer is parsed on a worker thread.
LONG_ANSWER_BYTES = 200_000
SLICE_BYTES = 256_000  # ~1,300 entries of a list: 2-4 ms per slice
_BETWEEN_ITEMS = re.compile(rb"\}\s*,\s*\{")

_Model = TypeVar("_Model", bound=WireModel)


def parse_bytes(model: type[_Model], content: bytes, what: str, url: str) -> _Model:
    """One model from an answer's bytes; InvalidResponse naming the field when the shape is wrong."""
    if not content.strip():
        raise InvalidResponse(f"The server sent {what} that is not a JSON object.")
    try:
        return model.model_validate_json(content)
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "json_invalid":
            raise InvalidResponse(f"{url} answered something that is not JSON.") from None
        if not first["loc"]:
            raise InvalidResponse(f"The server sent {what} that is not a JSON object.") from None
        raise InvalidResponse(f"The server sent {what} the console cannot read ({problem(error)}).") from None


async def parse_list_bytes(model: type[_Model], items: str, content: bytes, what: str, url: str) -> _Model:
    """`parse_bytes` of a model holding a long tuple field `items` (an allowlist's entries): a long answer
    on a worker thread, its items in slices."""
    if len(content) < LONG_ANSWER_BYTES:
        return parse_bytes(model, content, what, url)
    return await asyncio.to_thread(parse_in_slices, model, items, content, what, url)


def parse_in_slices(model: type[_Model], items: str, content: bytes, what: str, url: str) -> _Model:
    """`parse_bytes`, the tuple field `items` parsed a slice at a time (the thread it runs on lets others
    run between slices)."""
    cuts = _item_cuts(content, items)
    if cuts is None:
        return parse_bytes(model, content, what, url)
    opened, bounds, last = cuts
    item_type = get_args(model.model_fields[items].annotation)[0]
    read, adapter = _readers(item_type)
    parsed: list[Any] = []
    gc.collect(1)  # the young garbage of the moment goes now, not frozen below (a few ms)
    try:
        with collector_paused():
            for begin, end in bounds:
                piece = b"[" + content[begin:end] + b"]"
                try:
                    parsed += read(piece)
                except msgspec.MsgspecError:  # refused or not JSON: pydantic reads it or says why not
                    parsed += adapter.validate_json(piece)
            # The model around the last slice of items.
            rest = model.model_validate_json(content[:opened] + content[last:])
            gc.freeze()
    except ValidationError:  # a cut inside a string or a nested object, or a wrong answer: the whole says
        return parse_bytes(model, content, what, url)
    return rest.model_copy(update={items: (*parsed, *getattr(rest, items))})


@cache
def _readers(item_type: Any) -> tuple[Callable[[bytes], list[Any]], TypeAdapter[list[Any]]]:
    """msgspec's reader of a JSON array of `item_type`, and pydantic's (made once per type)."""
    if dataclasses.is_dataclass(item_type):
        read: Callable[[bytes], list[Any]] = msgspec.json.Decoder(list[item_type]).decode
    else:  # msgspec cannot make a pydantic model: pydantic reads every slice
        read = _refused
    return read, TypeAdapter(list[item_type])


def _refused(_piece: bytes) -> list[Any]:
    raise msgspec.ValidationError("read by pydantic")


def _item_cuts(content: bytes, items: str) -> tuple[int, list[tuple[int, int]], int] | None:
    """Where the array `items` of the top-level object opens (just past its `[`), the (begin, end) of its
    slices but the last, and where the last begins; None when the array is not at the top level or short."""
    found = re.search(rb'"' + re.escape(items.encode()) + rb'"\s*:\s*\[', content)
    if found is None or len(content) - found.end() < 2 * SLICE_BYTES:
        return None
    try:  # the key belongs to the top-level object: its members before it close into an object
        json.loads(content[: found.start()] + b'"":0}')
    except ValueError:
        return None
    bounds: list[tuple[int, int]] = []
    begin = found.end()
    while (between := _BETWEEN_ITEMS.search(content, begin + SLICE_BYTES)) is not None:
        bounds.append((begin, between.start() + 1))  # through the `}` of the slice's last item
        begin = between.end() - 1  # the `{` of the next slice's first item
    return found.end(), bounds, begin


_pause_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside (threads may nest it; the first in decides what the last out
    restores, so the launch's own pause, see app.__main__, is kept)."""
    global _pauses, _was_enabled
    with _pause_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.enable()
