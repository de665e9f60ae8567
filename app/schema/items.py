"""The Responses API's output items, defined once: an answer's message (its text, citations or a refusal),
reasoning, a web search, a function call, and the output a client sends back for a call.

One definition, read two ways:
- exactly, as the API defines them: the model config below refuses an unknown field, coerces no value and
  wants every required field. The sandbox validates what a client sends back (`input += response.output`)
  this way, and its tests hold what it answers to the same shapes.
- tolerantly, as the console reads any server (`read_tolerantly`): unknown fields are ignored and values
  coerced (pydantic's run-time `extra` and `strict` reach every nested model), and, through the validation
  context, a field a server left out, sent as null or gave a value the API does not name reads as the
  model's `when_missing` says, and parts of kinds the console does not show are dropped (`known_kinds`).
  Item types the console does not know at all are its own union's business (app/api/wire.py's OtherItem).
"""

from __future__ import annotations

import functools
import types
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Final, Literal, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationInfo, model_validator

ItemStatus = Literal["in_progress", "completed", "incomplete"]
SearchStatus = Literal["in_progress", "searching", "completed", "failed", "incomplete"]
Shape = TypeVar("Shape", bound=BaseModel)
T = TypeVar("T")

# The validation context of a tolerant read (a reader may add its own keys to a copy).
TOLERANT_READING: Final[Mapping[str, str]] = types.MappingProxyType({"reading": "tolerant"})
_TOLERANT: Final = dict(TOLERANT_READING)


def read_tolerantly(shape: type[Shape], data: object) -> Shape:
    """`data` as `shape`, the way the console reads a server: see the module's docstring."""
    return shape.model_validate(data, extra="ignore", strict=False, context=_TOLERANT)


def read_tolerantly_as(adapter: TypeAdapter[T], data: object) -> T:
    """As read_tolerantly, for a union or a list (a TypeAdapter)."""
    return adapter.validate_python(data, extra="ignore", strict=False, context=_TOLERANT)


def _tolerant(info: ValidationInfo) -> bool:
    context = info.context
    return context is _TOLERANT or (isinstance(context, dict) and context.get("reading") == "tolerant")


@functools.cache
def _named_values(shape: type[BaseModel], field: str) -> frozenset[object] | None:
    """The values a Literal field (or an optional one) may take; None for an open field."""
    annotation = shape.model_fields[field].annotation
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next((arg for arg in get_args(annotation) if get_origin(arg) is Literal), None)
    return frozenset(get_args(annotation)) if get_origin(annotation) is Literal else None


class ApiShape(BaseModel):
    """A shape of the API: exact by its config; read tolerantly, it fills and filters as its class says."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    # What a tolerant reader assumes for a field the API requires (or closes to named values) when a server
    # leaves it out, sends null or sends a value the API does not name: servers that are not the hosted
    # service do, and a saved conversation of an older console has "" where a server said nothing.
    when_missing: ClassVar[Mapping[str, object]] = {}
    # List fields whose elements a tolerant reader keeps only of these kinds ("type"): the rest are not
    # the console's business (a file citation, a part type newer than the console).
    known_kinds: ClassVar[Mapping[str, frozenset[str]]] = {}

    # when_missing and known_kinds as the validator walks them, worked out once per class (see below).
    _fills: ClassVar[tuple[tuple[str, object, frozenset[object] | None], ...]] = ()
    _filters: ClassVar[tuple[tuple[str, frozenset[str]], ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls._fills = tuple(
            (field, assumed, _named_values(cls, field)) for field, assumed in cls.when_missing.items()
        )
        cls._filters = tuple(cls.known_kinds.items())

    @model_validator(mode="before")
    @classmethod
    def _read_tolerantly(cls, data: Any, info: ValidationInfo) -> Any:
        # Runs for every nested item of every response the console reads: it copies the data only when a
        # field is filled or filtered (doing so for every object doubled the cost of reading a response).
        if not (cls._fills or cls._filters) or not isinstance(data, dict) or not _tolerant(info):
            return data
        read = data
        for field, kinds in cls._filters:
            values = data.get(field)
            if isinstance(values, list) and any(
                isinstance(v, dict) and v.get("type") not in kinds for v in values
            ):  # anything but a list: validation says what is wrong with it
                read = dict(read) if read is data else read
                read[field] = [v for v in values if not isinstance(v, dict) or v.get("type") in kinds]
        for field, assumed, named in cls._fills:
            value = data.get(field)
            if value is None or (named is not None and not _is_named(value, named)):
                read = dict(read) if read is data else read
                read[field] = assumed
        return read


def _is_named(value: object, named: frozenset[object]) -> bool:
    """Whether a value is one the API names; a list or an object (unhashable) never is."""
    try:
        return value in named
    except TypeError:
        return False


# --- a message's content -------------------------------------------------------------------------------


class UrlCitation(ApiShape):
    """A web page the text cites; `start_index`..`end_index` are the characters of the text it supports."""

    type: Literal["url_citation"]
    url: str
    title: str
    start_index: int = Field(ge=0)
    end_index: int = Field(ge=0)

    when_missing: ClassVar[Mapping[str, object]] = {"title": "", "start_index": 0, "end_index": 0}


class OutputText(ApiShape):
    type: Literal["output_text"]
    text: str
    annotations: list[UrlCitation] = Field(default_factory=list)
    logprobs: list[dict[str, Any]] | None = None

    when_missing: ClassVar[Mapping[str, object]] = {"annotations": []}
    known_kinds: ClassVar[Mapping[str, frozenset[str]]] = {"annotations": frozenset({"url_citation"})}


class Refusal(ApiShape):
    type: Literal["refusal"]
    refusal: str


OutputPart = Annotated[OutputText | Refusal, Field(discriminator="type")]


class OutputMessage(ApiShape):
    """An answer's message. (A message a client sends is the sandbox's InputMessage: any role, any parts.)"""

    type: Literal["message"]
    id: str
    role: Literal["assistant"]
    status: ItemStatus
    content: list[OutputPart]
    phase: Literal["commentary", "final_answer"] | None = None

    # A server that does not say is taken to have finished the item.
    when_missing: ClassVar[Mapping[str, object]] = {
        "id": "",
        "role": "assistant",
        "status": "completed",
        "content": [],
    }
    known_kinds: ClassVar[Mapping[str, frozenset[str]]] = {"content": frozenset({"output_text", "refusal"})}

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.content if isinstance(part, OutputText))


# --- reasoning and web searches ------------------------------------------------------------------------


class SummaryText(ApiShape):
    type: Literal["summary_text"]
    text: str

    when_missing: ClassVar[Mapping[str, object]] = {"type": "summary_text"}


class ReasoningText(ApiShape):
    type: Literal["reasoning_text"]
    text: str


class ReasoningItem(ApiShape):
    type: Literal["reasoning"]
    id: str
    summary: list[SummaryText]
    content: list[ReasoningText] | None = None
    encrypted_content: str | None = None
    status: ItemStatus | None = None

    when_missing: ClassVar[Mapping[str, object]] = {"id": "", "summary": []}
    known_kinds: ClassVar[Mapping[str, frozenset[str]]] = {"content": frozenset({"reasoning_text"})}


class SearchSource(ApiShape):
    type: Literal["url"]
    url: str


class SearchAction(ApiShape):
    """What a search did. (The hosted service also names opening a page and finding in it: a tolerant
    reader sees those as a search without a query.)"""

    type: Literal["search"]
    query: str | None = None
    queries: list[str] | None = None
    sources: list[SearchSource] | None = None

    when_missing: ClassVar[Mapping[str, object]] = {"type": "search"}
    known_kinds: ClassVar[Mapping[str, frozenset[str]]] = {"sources": frozenset({"url"})}


class WebSearchCall(ApiShape):
    type: Literal["web_search_call"]
    id: str
    status: SearchStatus
    action: SearchAction

    when_missing: ClassVar[Mapping[str, object]] = {
        "id": "",
        "status": "completed",
        "action": {"type": "search"},
    }


# --- function calls ------------------------------------------------------------------------------------


class FunctionCallItem(ApiShape):
    """The model calling a function the request offered; `arguments` is the JSON text it wrote."""

    type: Literal["function_call"]
    call_id: str = Field(min_length=1, max_length=256)
    name: str = Field(min_length=1, max_length=256)
    arguments: str
    id: str | None = None
    namespace: str | None = None  # the group of a namespace tool the function belongs to
    status: ItemStatus | None = None

    when_missing: ClassVar[Mapping[str, object]] = {"arguments": ""}


class OutputTextPart(ApiShape):
    type: Literal["input_text", "output_text"]
    text: str


class FunctionCallOutputItem(ApiShape):
    """A client's result of a call: a string, or text parts."""

    type: Literal["function_call_output"]
    call_id: str = Field(min_length=1, max_length=256)
    output: str | list[OutputTextPart]
    id: str | None = None
    name: str | None = None
    namespace: str | None = None
    status: ItemStatus | None = None

    def text(self) -> str:
        if isinstance(self.output, str):
            return self.output
        return "\n".join(part.text for part in self.output)


# What an answer's `output` holds: the assistant's message (output_text and refusal parts, never a user's
# input_text), reasoning, a web search and a function call. Each goes back as input unchanged, but not every
# item a request may send (a function call's output, a user's message) is an item an answer holds.
AnswerItem = Annotated[
    OutputMessage | ReasoningItem | WebSearchCall | FunctionCallItem, Field(discriminator="type")
]
