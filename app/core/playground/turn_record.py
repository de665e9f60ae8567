"""What a saved turn keeps besides its text, so that a reopened turn looks as it did: its function calls and
their outputs, the functions it offered, its searches, sources and reasoning, its chain note, and what the
inspector showed (the request as sent, the response headers, the event timeline).

Read back tolerantly: the details come from a file, and a damaged value loses that value, not the turn.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from app.core.playground.function_calls import calls_from_saved
from app.core.playground.functions import ToolSettings
from app.core.playground.turns import TimelineEntry, Turn, redacted_body

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from app.api.requests import ResponseCreateParams

log = logging.getLogger(__name__)
TIMELINE_LIMIT = 2_000  # events kept per turn: deltas are many, and the inspector counts them anyway
# The request fields that are the person's options (not the conversation: model, input, chain id).
OPTION_KEYS = ("instructions", "temperature", "top_p", "max_output_tokens", "tools", "text", "reasoning")


def sent_options(body: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options a request was sent with, as kept with a saved turn (read back tolerantly by Compare's
    options_for)."""
    return {key: body[key] for key in OPTION_KEYS if key in body} if body is not None else {}


def shown_again(turn: Turn) -> dict[str, Any]:
    """The details a reopened turn needs, as JSON-ready values."""
    items = turn.output_items()
    kept_items = [
        item.model_dump(mode="json") for item in items if item.type not in ("message", "function_call")
    ]
    return {
        "calls": [call.as_saved() for call in turn.calls],
        "tools": turn.tools.as_saved() if turn.tools.functions else None,
        "rounds": turn.rounds,
        "round_note": turn.round_note,
        "items": kept_items,
        "citations": [citation.model_dump(mode="json") for citation in _citations(items)],
        "chain_note": turn.chain_note,
        "request": redacted_body(turn.request_body),
        "followups": [redacted_body(body) for body in turn.followups],
        "headers": dict(turn.headers),
        "timeline": [[entry.seconds, entry.type] for entry in turn.timeline[:TIMELINE_LIMIT]],
        "timeline_total": len(turn.timeline),
        "schema": turn.schema,
        "prompt": (
            {"id": turn.prompt_id, "version": turn.prompt_version, "name": turn.prompt_name}
            if turn.prompt_id
            else None
        ),
    }


def _citations(items: Any) -> list[Any]:
    from app.api.wire import citations

    return citations(items)


@functools.cache
def _items_reader() -> TypeAdapter[list[Any]]:
    """One reader for a turn's saved output items: building a TypeAdapter costs ~5 ms, once per turn was 1 s
    at 200; and one validation of the whole list costs less than one per item."""
    from pydantic import TypeAdapter

    from app.api.wire import OutputItem

    return TypeAdapter(list[OutputItem])


def _read_items(values: list[Any]) -> list[Any]:
    """The saved items, read tolerantly; a damaged one is left out (and logged), the others kept."""
    from pydantic import ValidationError

    from app.schema.items import read_tolerantly_as

    try:
        return read_tolerantly_as(_items_reader(), values)
    except ValidationError:
        pass  # one at a time, to keep all but the damaged ones
    items: list[Any] = []
    for value in values:
        try:
            read: list[Any] = read_tolerantly_as(_items_reader(), [value])
            items.extend(read)
        except ValidationError as error:
            log.warning("a saved output item was not read: %s", error.errors()[0]["msg"])
    return items


def _read_citations(values: list[Any]) -> list[Any]:
    """The saved sources as one answer message's annotations (none when no source reads)."""
    from pydantic import ValidationError

    from app.schema.items import OutputMessage, OutputText, UrlCitation, read_tolerantly

    kept: list[UrlCitation] = []
    for value in values:
        try:
            kept.append(read_tolerantly(UrlCitation, value))
        except ValidationError:
            continue
    if not kept:
        return []
    part = OutputText(type="output_text", text="", annotations=kept)
    return [OutputMessage(type="message", id="", role="assistant", status="completed", content=[part])]


def restore_shown(turn: Turn, details: Mapping[str, Any]) -> None:
    """Give a turn read from the file what it showed: calls, items, notes and the inspector's data."""
    # pydantic is imported only for a turn that kept items or sources: under PySide every import statement
    # in a function goes through its import hook, a cost paid 200 times over when a conversation reopens.
    turn.calls = calls_from_saved(details.get("calls"))
    turn.tools = ToolSettings.from_saved(details.get("tools"))
    rounds = details.get("rounds")
    turn.rounds = rounds if isinstance(rounds, int) and rounds >= 1 else 1
    turn.round_note = _text(details.get("round_note"))
    turn.chain_note = _text(details.get("chain_note"))
    raw_items = details.get("items")
    items = _read_items(raw_items) if isinstance(raw_items, list) and raw_items else []
    raw_citations = details.get("citations")
    if isinstance(raw_citations, list) and raw_citations:
        # the sources are shown from the answer's annotations, as when it streamed
        items.extend(_read_citations(raw_citations))
    turn.items = items  # the response read from the file has no output: these are the turn's items
    request = details.get("request")
    # The request as it was sent (image data shortened): the inspector shows it, and a turn reopened while
    # waiting for function outputs sends them back from it. Read from the file, so checked only for its model.
    if isinstance(request, Mapping) and isinstance(request.get("model"), str) and "input" in request:
        turn.request_body = cast("ResponseCreateParams", dict(request))
    followups = details.get("followups")
    kept = followups if isinstance(followups, list) else []
    turn.followups = [cast("ResponseCreateParams", dict(body)) for body in kept if isinstance(body, Mapping)]
    headers = details.get("headers")
    if isinstance(headers, Mapping):
        turn.headers = {str(key): str(value) for key, value in headers.items()}
    timeline = details.get("timeline")
    if isinstance(timeline, list):
        turn.timeline = [
            TimelineEntry(float(entry[0]), str(entry[1]))
            for entry in timeline
            if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int | float)
        ]
    schema = details.get("schema")
    turn.schema = schema if isinstance(schema, dict) else None
    source = details.get("prompt")
    if isinstance(source, Mapping) and isinstance(source.get("id"), str):
        version = source.get("version")
        turn.prompt_id = source["id"]
        turn.prompt_version = version if isinstance(version, int) else None
        turn.prompt_name = _text(source.get("name"))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
