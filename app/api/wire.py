"""Typed wire models of the Responses API as the console reads them, parsed once at the edge.

Unknown fields are ignored and unknown output items or content parts are kept as their bare type, so a
server that sends more than the console knows still works; a known shape that is malformed is refused by
`parse_response` with an InvalidResponse whose message says which field was wrong.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Tag, ValidationError, field_validator

from .errors import InvalidResponse


class WireModel(BaseModel):
    """Frozen, tolerant of fields it does not know."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def _only(kind: str, values: Any) -> Any:
    """Keep the parts of one known type from a list; other types are not the console's business."""
    if not isinstance(values, list):
        return values  # not a list at all: let validation say so
    return [value for value in values if not isinstance(value, dict) or value.get("type") == kind]


class UrlCitation(WireModel):
    type: Literal["url_citation"] = "url_citation"
    url: str
    title: str = ""
    start_index: int = 0
    end_index: int = 0


class OutputText(WireModel):
    type: Literal["output_text"] = "output_text"
    text: str
    annotations: tuple[UrlCitation, ...] = ()

    @field_validator("annotations", mode="before")
    @classmethod
    def _url_citations_only(cls, value: Any) -> Any:
        return _only("url_citation", value) if value is not None else ()


class MessageItem(WireModel):
    type: Literal["message"] = "message"
    id: str = ""
    role: str = "assistant"
    status: str = ""
    content: tuple[OutputText, ...] = ()

    @field_validator("content", mode="before")
    @classmethod
    def _output_text_only(cls, value: Any) -> Any:
        return _only("output_text", value) if value is not None else ()

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.content)


class SummaryText(WireModel):
    type: str = "summary_text"
    text: str


class ReasoningItem(WireModel):
    type: Literal["reasoning"] = "reasoning"
    id: str = ""
    summary: tuple[SummaryText, ...] = ()


class SearchAction(WireModel):
    type: str = "search"
    query: str = ""


class WebSearchCall(WireModel):
    type: Literal["web_search_call"] = "web_search_call"
    id: str = ""
    status: str = ""
    action: SearchAction | None = None


class FunctionCallItem(WireModel):
    """The model calling a function the request offered; `arguments` is the JSON text it wrote."""

    type: Literal["function_call"] = "function_call"
    id: str = ""
    call_id: str
    name: str
    arguments: str = ""
    status: str = ""


class OtherItem(WireModel):
    """An output item of a type the console does not show (a file search, a computer call…)."""

    type: str


_ITEM_TYPES = {"message", "reasoning", "web_search_call", "function_call"}


def _item_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    return kind if kind in _ITEM_TYPES else "other"


OutputItem = Annotated[
    Annotated[MessageItem, Tag("message")]
    | Annotated[ReasoningItem, Tag("reasoning")]
    | Annotated[WebSearchCall, Tag("web_search_call")]
    | Annotated[FunctionCallItem, Tag("function_call")]
    | Annotated[OtherItem, Tag("other")],
    Discriminator(_item_tag),
]


class Usage(WireModel):
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0


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
    usage: Usage | None = None
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
    return "".join(item.text for item in items if isinstance(item, MessageItem))


def citations(items: Iterable[object]) -> list[UrlCitation]:
    return [
        annotation
        for item in items
        if isinstance(item, MessageItem)
        for part in item.content
        for annotation in part.annotations
    ]


def search_queries(items: Iterable[object]) -> list[str]:
    return [item.action.query if item.action else "" for item in items if isinstance(item, WebSearchCall)]


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
        return Response.model_validate(data)
    except ValidationError as error:
        raise InvalidResponse(
            f"The server sent a {what} the console cannot read ({problem(error)})."
        ) from None
