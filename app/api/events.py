"""The stream events the console reads, typed; every other event type passes through as an OtherEvent.

`parse_event` turns one Server-Sent Event into a typed event, `None` for the `[DONE]` terminator that
OpenAI-compatible servers send last, or an InvalidResponse saying what was wrong with it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, ValidationError, field_validator

from .errors import InvalidResponse
from .wire import OutputItem, Response, WireModel, problem

# CONTRACT.md: the interface document says response.text.delta, the public API output_text.delta.
DELTA_TYPES = frozenset({"response.output_text.delta", "response.text.delta"})
FINAL_TYPES = frozenset({"response.completed", "response.failed", "response.incomplete"})
LIFECYCLE_TYPES = FINAL_TYPES | {"response.created", "response.in_progress", "response.queued"}
ITEM_TYPES = frozenset({"response.output_item.added", "response.output_item.done"})
SEARCH_TYPES = frozenset(
    {
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
    }
)
DONE = "[DONE]"


class StreamEvent(WireModel):
    """Any event: its type, and when it arrived (time.perf_counter())."""

    type: str
    sequence_number: int | None = None
    received_at: float = 0.0

    @property
    def is_text_delta(self) -> bool:
        return False

    @property
    def delta(self) -> str:
        return ""


class OtherEvent(StreamEvent):
    """An event type the console does not act on (content_part.added, output_text.done…)."""


class ResponseEvent(StreamEvent):
    """created, in_progress, and the final completed / failed / incomplete, with the whole response."""

    response: Response

    @property
    def is_final(self) -> bool:
        return self.type in FINAL_TYPES


class OutputItemEvent(StreamEvent):
    output_index: int = 0
    item: OutputItem


class TextDelta(StreamEvent):
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    delta_text: str = Field(alias="delta")

    @property
    def is_text_delta(self) -> bool:
        return True

    @property
    def delta(self) -> str:
        return self.delta_text


class WebSearchProgress(StreamEvent):
    item_id: str = ""
    output_index: int = 0


class ErrorEvent(StreamEvent):
    """The stream failed after it began. Some servers nest the fields under `error`."""

    message: str = ""
    code: str | None = None

    @field_validator("code", mode="before")
    @classmethod
    def _code_as_text(cls, value: Any) -> Any:
        return None if value is None else str(value)


def _kind(type_: str) -> type[StreamEvent]:
    if type_ in DELTA_TYPES:
        return TextDelta
    if type_ in LIFECYCLE_TYPES:
        return ResponseEvent
    if type_ in ITEM_TYPES:
        return OutputItemEvent
    if type_ in SEARCH_TYPES:
        return WebSearchProgress
    if type_ == "error":
        return ErrorEvent
    return OtherEvent


def _shown(text: str) -> str:
    return repr(text[:80]) + ("…" if len(text) > 80 else "")


def parse_event(name: str, data: str, received_at: float) -> StreamEvent | None:
    """One SSE (its `event:` name and `data:` text) as a typed event; None for `[DONE]`."""
    if data.strip() == DONE:
        return None
    try:
        fields = json.loads(data)
    except ValueError:
        raise InvalidResponse(f"The server sent a malformed event: {_shown(data)}.") from None
    if not isinstance(fields, dict):
        raise InvalidResponse(f"The server sent an event that is not a JSON object: {_shown(data)}.")
    type_ = fields.get("type") or name
    if not isinstance(type_, str) or not type_:
        raise InvalidResponse(f"The server sent an event without a type: {_shown(data)}.")
    kind = _kind(type_)
    values = {**fields, "type": type_, "received_at": received_at}
    if kind is ErrorEvent and isinstance(fields.get("error"), dict):
        values = {**fields["error"], **values}
    if kind is ResponseEvent and not isinstance(fields.get("response"), dict):
        raise InvalidResponse(f"The server sent a {type_} event whose response is not an object.")
    try:
        event = kind.model_validate(values)
    except ValidationError as error:
        raise InvalidResponse(
            f"The server sent a {type_} event the console cannot read ({problem(error)})."
        ) from None
    if isinstance(event, ResponseEvent) and event.is_final:
        missing = [name for name in ("id", "status") if not getattr(event.response, name)]
        if missing:  # a final response with no id or status is no answer to keep or chain from
            raise InvalidResponse(
                f"The server sent a {type_} event whose response has no {' or '.join(missing)}."
            )
    return event
