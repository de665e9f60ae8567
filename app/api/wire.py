"""Typed wire models of the Responses API as the console reads them, parsed once at the edge.

The output items are app.schema's (one definition with the sandbox), read tolerantly: unknown fields are
ignored, unknown output items kept as their bare type (OtherItem) and unknown content parts dropped, so a
server that sends more than the console knows still works; a known shape that is malformed is refused by
`parse_response` with an InvalidResponse whose message says which field was wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, ValidationError, field_validator

from app.schema.items import (
    FunctionCallItem,
    OutputMessage,
    OutputText,
    ReasoningItem,
    UrlCitation,
    WebSearchCall,
    read_tolerantly,
)

from .errors import InvalidResponse


class WireModel(BaseModel):
    """Frozen, tolerant of fields it does not know."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class OtherItem(WireModel):
    """An output item of a type the console does not show (a file search, a computer call…): the one item
    the sandbox has no use for, so it lives here rather than in app.schema."""

    type: str


_ITEM_TYPES = {"message", "reasoning", "web_search_call", "function_call"}


def _item_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in _ITEM_TYPES else "other"


OutputItem = Annotated[
    Annotated[OutputMessage, Tag("message")]
    | Annotated[ReasoningItem, Tag("reasoning")]
    | Annotated[WebSearchCall, Tag("web_search_call")]
    | Annotated[FunctionCallItem, Tag("function_call")]
    | Annotated[OtherItem, Tag("other")],
    Discriminator(_item_tag),
]


class InputTokensDetails(WireModel):
    cached_tokens: int = 0


class OutputTokensDetails(WireModel):
    reasoning_tokens: int = 0


class ResponseUsage(WireModel):
    """The tokens an answer used; cached input is part of the input, reasoning part of the output."""

    input_tokens: int = 0
    input_tokens_details: InputTokensDetails | None = None
    output_tokens: int = 0
    output_tokens_details: OutputTokensDetails | None = None
    total_tokens: int = 0

    @property
    def cached_tokens(self) -> int:
        return self.input_tokens_details.cached_tokens if self.input_tokens_details else 0

    @property
    def reasoning_tokens(self) -> int:
        return self.output_tokens_details.reasoning_tokens if self.output_tokens_details else 0


class ResponseError(WireModel):
    message: str = ""
    code: str | None = None


class IncompleteDetails(WireModel):
    reason: str | None = None


class ReasoningSettings(WireModel):
    """The reasoning a response was asked for, as the server repeats it."""

    effort: str | None = None
    summary: str | None = None


class Response(WireModel):
    """A response object; `output_text` and friends are computed as the official libraries do."""

    id: str = ""
    object: str = "response"
    created_at: float | None = None
    status: str = ""
    model: str = ""
    output: tuple[OutputItem, ...] = ()
    previous_response_id: str | None = None
    usage: ResponseUsage | None = None
    error: ResponseError | None = None
    incomplete_details: IncompleteDetails | None = None
    reasoning: ReasoningSettings | None = None

    @field_validator("output", mode="before")
    @classmethod
    def _no_null_output(cls, value: Any) -> Any:
        return () if value is None else value

    @property
    def output_text(self) -> str:
        return output_text(self.output)

    @property
    def citations(self) -> list[UrlCitation]:
        return citations(self.output)

    @property
    def search_queries(self) -> list[str]:
        return search_queries(self.output)

    @property
    def reasoning_summary(self) -> str:
        return reasoning_summary(self.output)

    @property
    def stop_reason(self) -> str:
        """Why the answer ended, in a few words: the status, and the reason when one was given."""
        reason = self.incomplete_details.reason if self.incomplete_details else None
        return f"{self.status or 'unknown'}" + (f", {reason}" if reason else "")


def output_text(items: Iterable[object]) -> str:
    return "".join(item.text for item in items if isinstance(item, OutputMessage))


def citations(items: Iterable[object]) -> list[UrlCitation]:
    return [
        annotation
        for item in items
        if isinstance(item, OutputMessage)
        for part in item.content
        if isinstance(part, OutputText)
        for annotation in part.annotations
    ]


def search_queries(items: Iterable[object]) -> list[str]:
    return [item.action.query or "" for item in items if isinstance(item, WebSearchCall)]


def reasoning_summary(items: Iterable[object]) -> str:
    return "\n\n".join(
        part.text for item in items if isinstance(item, ReasoningItem) for part in item.summary
    )


def function_calls(items: Iterable[object]) -> list[FunctionCallItem]:
    return [item for item in items if isinstance(item, FunctionCallItem)]


def problem(error: ValidationError) -> str:
    """The first thing validation refused, as `field.path: what was wrong`."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"] if not str(part).startswith("function-"))
    return f"{where or 'the object'}: {first['msg'].lower()}"


def parse_response(data: Any, what: str = "response") -> Response:
    """A response object from decoded JSON; InvalidResponse naming the field when its shape is wrong."""
    if not isinstance(data, dict):
        raise InvalidResponse(f"The server sent a {what} that is not a JSON object.")
    try:
        return read_tolerantly(Response, data)
    except ValidationError as error:
        raise InvalidResponse(
            f"The server sent a {what} the console cannot read ({problem(error)})."
        ) from None
