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

from app.core.playground.functions import ToolSettings, calls_from_saved
from app.core.playground.turns import TimelineEntry, Turn, redacted_body

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from app.api.requests import ResponseRequest

log = logging.getLogger(__name__)
TIMELINE_LIMIT = 2_000  # events kept per turn: deltas are many, and the inspector counts them anyway


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
    }


def _citations(items: Any) -> list[Any]:
    from app.api.wire import citations

    return citations(items)


@functools.cache
def _item_reader() -> TypeAdapter[Any]:
    """One reader for saved output items: building a TypeAdapter costs ~5 ms, once per turn was 1 s at 200."""
    from pydantic import TypeAdapter

    from app.api.wire import OutputItem

    return TypeAdapter(OutputItem)


def _read_item(value: object) -> Any:
    from app.schema.items import read_tolerantly_as

    return read_tolerantly_as(_item_reader(), value)


def restore_shown(turn: Turn, details: Mapping[str, Any]) -> None:
    """Give a turn read from the file what it showed: calls, items, notes and the inspector's data."""
    from pydantic import ValidationError

    from app.schema.items import OutputMessage, OutputText, UrlCitation, read_tolerantly

    turn.calls = calls_from_saved(details.get("calls"))
    turn.tools = ToolSettings.from_saved(details.get("tools"))
    rounds = details.get("rounds")
    turn.rounds = rounds if isinstance(rounds, int) and rounds >= 1 else 1
    turn.round_note = _text(details.get("round_note"))
    turn.chain_note = _text(details.get("chain_note"))
    items: list[Any] = []
    for value in details.get("items") or []:
        try:
            items.append(_read_item(value))
        except ValidationError as error:
            log.warning("a saved output item was not read: %s", error.errors()[0]["msg"])
    raw_citations = details.get("citations") or []
    kept_citations: list[UrlCitation] = []
    for value in raw_citations if isinstance(raw_citations, list) else []:
        try:
            kept_citations.append(read_tolerantly(UrlCitation, value))
        except ValidationError:
            continue
    if kept_citations:  # the sources are shown from the answer's annotations, as when it streamed
        part = OutputText(type="output_text", text="", annotations=kept_citations)
        items.append(
            OutputMessage(type="message", id="", role="assistant", status="completed", content=[part])
        )
    turn.items = items  # the response read from the file has no output: these are the turn's items
    request = details.get("request")
    # The request as it was sent (image data shortened): the inspector shows it, and a turn reopened while
    # waiting for function outputs sends them back from it. Read from the file, so checked only for its model.
    if isinstance(request, Mapping) and isinstance(request.get("model"), str) and "input" in request:
        turn.request_body = cast("ResponseRequest", dict(request))
    followups = details.get("followups")
    kept = followups if isinstance(followups, list) else []
    turn.followups = [cast("ResponseRequest", dict(body)) for body in kept if isinstance(body, Mapping)]
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


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
