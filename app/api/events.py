"""The stream events the console reads, as a discriminated union of models; every other event type passes
through as an OtherEvent, so a server that sends more than the console knows still streams.

`parse_event` turns one Server-Sent Event into a typed event, `None` for the `[DONE]` terminator that
OpenAI-compatible servers send last, or an InvalidResponse saying what was wrong with it. Consumers dispatch
on the class (isinstance, match), never on the `type` text.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from app.schema.items import TOLERANT_READING, read_tolerantly_as

from .errors import InvalidResponse
from .wire import OutputItem, Response, WireModel, problem

DONE = "[DONE]"

# The interface document names the delta event response.text.delta; the public API, output_text.delta.
TextDeltaType = Literal["response.output_text.delta", "response.text.delta"]
FinalType = Literal["response.completed", "response.failed", "response.incomplete"]
ResponseEventType = Literal["response.created", "response.in_progress", "response.queued", FinalType]
OutputItemEventType = Literal["response.output_item.added", "response.output_item.done"]
WebSearchEventType = Literal[
    "response.web_search_call.in_progress",
    "response.web_search_call.searching",
    "response.web_search_call.completed",
]


class StreamEvent(WireModel):
    """What every event has: its type, and when it arrived (time.perf_counter())."""

    type: str
    sequence_number: int | None = None
    # Given by the reader (parse_event's context), never by the server: a default validated so the
    # validator below can set it while the event is parsed straight from its JSON text.
    received_at: float = Field(default=0.0, validate_default=True)

    @field_validator("received_at", mode="before")
    @classmethod
    def _arrival(cls, value: Any, info: ValidationInfo) -> Any:
        context = info.context
        return context.get("received_at", value) if isinstance(context, dict) else value


class OtherEvent(StreamEvent):
    """An event type the console does not act on (content_part.added, output_text.done, a new one…)."""


class ResponseEvent(StreamEvent):
    """created, in_progress, and the final completed / failed / incomplete, with the whole response."""

    type: ResponseEventType
    response: Response

    @property
    def is_final(self) -> bool:
        return self.type in get_args(FinalType)


class OutputItemEvent(StreamEvent):
    type: OutputItemEventType
    output_index: int = 0
    item: OutputItem

    @property
    def done(self) -> bool:
        """The item is whole (a search or reasoning that finished), not just begun."""
        return self.type == "response.output_item.done"


class TextDeltaEvent(StreamEvent):
    type: TextDeltaType
    item_id: str = ""
    output_index: int = 0
    content_index: int = 0
    delta: str


class WebSearchProgress(StreamEvent):
    type: WebSearchEventType
    item_id: str = ""
    output_index: int = 0


class ErrorEvent(StreamEvent):
    """The stream failed after it began. Some servers nest the fields under `error`."""

    type: Literal["error"]
    message: str = ""
    code: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _flatten_nested_error(cls, value: Any) -> Any:
        if isinstance(value, dict) and isinstance(value.get("error"), dict):
            return {**value["error"], **value}
        return value

    @field_validator("code", mode="before")
    @classmethod
    def _code_as_text(cls, value: Any) -> Any:
        return None if value is None else str(value)


_TAGS: dict[str, str] = {
    **{name: "text_delta" for name in get_args(TextDeltaType)},
    **{name: "response" for name in get_args(ResponseEventType)},
    **{name: "output_item" for name in get_args(OutputItemEventType)},
    **{name: "web_search" for name in get_args(WebSearchEventType)},
    "error": "error",
}


def _event_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return _TAGS.get(kind, "other") if isinstance(kind, str) else "other"


Event = Annotated[
    Annotated[TextDeltaEvent, Tag("text_delta")]
    | Annotated[ResponseEvent, Tag("response")]
    | Annotated[OutputItemEvent, Tag("output_item")]
    | Annotated[WebSearchProgress, Tag("web_search")]
    | Annotated[ErrorEvent, Tag("error")]
    | Annotated[OtherEvent, Tag("other")],
    Discriminator(_event_tag),
]
_EVENTS: TypeAdapter[Event] = TypeAdapter(Event)


def _shown(text: str) -> str:
    return repr(text[:80]) + ("…" if len(text) > 80 else "")


def parse_event(name: str, data: str, received_at: float) -> Event | None:
    """One SSE (its `event:` name and `data:` text) as a typed event; None for `[DONE]`."""
    if data.strip() == DONE:
        return None
    # Most events are whole and well formed: read straight from the JSON text in one pass (pydantic-core
    # parses and validates together; json.loads, a dict merge and a second validation cost twice as much).
    # Anything that does not read so (no type, a type only the `event:` line gives, a malformed field)
    # takes the careful path below, which says what was wrong.
    try:
        event: Event | None = _EVENTS.validate_json(
            data,
            extra="ignore",
            strict=False,
            context={**TOLERANT_READING, "received_at": received_at},
        )
    except ValidationError:
        event = None
    if event is None or not event.type:
        event = _parse_carefully(name, data, received_at)
    if isinstance(event, ResponseEvent) and event.is_final:
        missing = [name for name in ("id", "status") if not getattr(event.response, name)]
        if missing:  # a final response with no id or status is no answer to keep or chain from
            raise InvalidResponse(
                f"The server sent a {event.type} event whose response has no {' or '.join(missing)}."
            )
    return event


def _parse_carefully(name: str, data: str, received_at: float) -> Event:
    """An event the fast path could not read: read as the console reads any server, or refused in words."""
    try:
        fields = json.loads(data)
    except ValueError:
        raise InvalidResponse(f"The server sent a malformed event: {_shown(data)}.") from None
    if not isinstance(fields, dict):
        raise InvalidResponse(f"The server sent an event that is not a JSON object: {_shown(data)}.")
    type_ = fields.get("type") or name
    if not isinstance(type_, str) or not type_:
        raise InvalidResponse(f"The server sent an event without a type: {_shown(data)}.")
    values = {**fields, "type": type_, "received_at": received_at}
    if _event_tag(values) == "response" and not isinstance(fields.get("response"), dict):
        raise InvalidResponse(f"The server sent a {type_} event whose response is not an object.")
    try:
        return read_tolerantly_as(_EVENTS, values)
    except ValidationError as error:
        raise InvalidResponse(
            f"The server sent a {type_} event the console cannot read ({problem(error)})."
        ) from None
