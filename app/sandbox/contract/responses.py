"""The contract of `POST /v1/responses`: pydantic models that validate its body and give the OpenAPI schemas.

Names the official client sends but the sandbox cannot honour are typed loosely and echoed back; a name that
is no parameter at all is refused (`extra="forbid"`). Tags of the tagged unions start with "~" so that
validate.py can drop them from an error's location.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator
from pydantic_core import PydanticCustomError

from app.common.jsonschema_check import schema_problem
from app.sandbox.contract.tools import (
    FunctionTool,
    ItemReference,
    NamespaceTool,
    ToolChoice,
    item_tag,
)
from app.schema.items import (
    FunctionCallItem,
    FunctionCallOutputItem,
    OutputText,
    ReasoningItem,
    Refusal,
    WebSearchCall,
)

Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
SummaryMode = Literal["auto", "concise", "detailed"]
Includable = Literal[
    "file_search_call.results",
    "web_search_call.results",
    "web_search_call.action.sources",
    "message.input_image.image_url",
    "computer_call_output.output.image_url",
    "code_interpreter_call.outputs",
    "reasoning.encrypted_content",
    "message.output_text.logprobs",
]
NonEmpty = Annotated[str, Field(min_length=1, max_length=512)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _type_of(default: str) -> Any:
    """A callable discriminator on "type" (absent means `default`); non-objects go to the default branch."""

    def tag(value: Any) -> str:
        kind = value.get("type", default) if isinstance(value, dict) else default
        return f"~{kind}" if isinstance(kind, str) else "~?"

    return Discriminator(tag)


# --- content parts -------------------------------------------------------------------------------------


class InputText(Strict):
    type: Literal["input_text"]
    text: str


class InputImage(Strict):
    type: Literal["input_image"]
    image_url: str = Field(min_length=1)
    detail: Literal["auto", "low", "high"] = "auto"
    file_id: str | None = None


InputPart = Annotated[
    Annotated[InputText, Tag("~input_text")] | Annotated[InputImage, Tag("~input_image")],
    _type_of("input_text"),
]
AnyPart = Annotated[
    Annotated[InputText, Tag("~input_text")]
    | Annotated[InputImage, Tag("~input_image")]
    | Annotated[OutputText, Tag("~output_text")]
    | Annotated[Refusal, Tag("~refusal")],
    _type_of("input_text"),
]

# --- input items ---------------------------------------------------------------------------------------


def _content_tag(value: Any) -> str:
    return "~text" if isinstance(value, str) else "~parts"


class InputMessage(Strict):
    """A message a client sends: any role, its text as a string or parts (an answer's own message, app.schema's
    OutputMessage, is one of these when it comes back)."""

    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: Annotated[
        Annotated[str, Tag("~text")] | Annotated[list[AnyPart], Tag("~parts")],
        Discriminator(_content_tag),
    ]
    id: str | None = None
    status: Literal["in_progress", "completed", "incomplete"] | None = None
    phase: Literal["commentary", "final_answer"] | None = None


class CompactionItem(Strict):
    """What `POST /v1/responses/compact` hands out, sent back as input: sealed, only this sandbox reads it."""

    type: Literal["compaction"]
    encrypted_content: str = Field(min_length=1, max_length=10_485_760)
    id: str | None = None
    created_by: str | None = None


InputItem = Annotated[
    Annotated[InputMessage, Tag("~message")]
    | Annotated[CompactionItem, Tag("~compaction")]
    | Annotated[ReasoningItem, Tag("~reasoning")]
    | Annotated[WebSearchCall, Tag("~web_search_call")]
    | Annotated[FunctionCallItem, Tag("~function_call")]
    | Annotated[FunctionCallOutputItem, Tag("~function_call_output")]
    | Annotated[ItemReference, Tag("~item_reference")],
    Discriminator(item_tag),
]


def _input_tag(value: Any) -> str:
    return "~text" if isinstance(value, str) else "~items"


# --- tools, text format, reasoning, and the rest -------------------------------------------------------


class UserLocation(Strict):
    type: Literal["approximate"] = "approximate"
    city: str | None = None
    country: str | None = None
    region: str | None = None
    timezone: str | None = None


class WebSearchTool(Strict):
    type: Literal[
        "web_search", "web_search_preview", "web_search_2025_08_26", "web_search_preview_2025_03_11"
    ]
    search_context_size: Literal["low", "medium", "high"] | None = None
    user_location: UserLocation | None = None
    search_content_types: list[Literal["text", "image"]] | None = None
    external_web_access: bool | None = None
    filters: dict[str, Any] | None = None


def _tool_tag(value: Any) -> str:
    kind = value.get("type") if isinstance(value, dict) else None
    if isinstance(kind, str) and kind.startswith("web_search"):
        return "~web_search"
    return f"~{kind}" if isinstance(kind, str) else "~?"


Tool = Annotated[
    Annotated[WebSearchTool, Tag("~web_search")]
    | Annotated[FunctionTool, Tag("~function")]
    | Annotated[NamespaceTool, Tag("~namespace")],
    Discriminator(_tool_tag),
]


class FormatText(Strict):
    type: Literal["text"]


class FormatJsonObject(Strict):
    type: Literal["json_object"]


class FormatJsonSchema(Strict):
    type: Literal["json_schema"]
    name: str = Field(json_schema_extra={"pattern": "^[A-Za-z0-9_-]{1,64}$"})  # as `_name` checks
    schema_: dict[str, Any] = Field(alias="schema")
    strict: bool | None = False
    description: str | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name):
            raise PydanticCustomError(
                "invalid_value", "'text.format.name' must be 1-64 letters, digits, '_' or '-'."
            )
        return name

    @field_validator("schema_")
    @classmethod
    def _schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        problem = schema_problem(schema)
        if problem is not None:
            message = f"'text.format.schema' is not a valid JSON Schema: {problem[:200]}."
            raise PydanticCustomError("invalid_json_schema", message)
        return schema


TextFormat = Annotated[
    Annotated[FormatText, Tag("~text")]
    | Annotated[FormatJsonObject, Tag("~json_object")]
    | Annotated[FormatJsonSchema, Tag("~json_schema")],
    _type_of("text"),
]


class TextOptions(Strict):
    format: TextFormat | None = None
    verbosity: Literal["low", "medium", "high"] | None = None


class ReasoningOptions(Strict):
    effort: Effort | None = None
    summary: SummaryMode | None = None
    generate_summary: SummaryMode | None = None
    context: Literal["auto", "current_turn", "all_turns"] | None = None
    mode: str | None = None


class StreamOptions(Strict):
    include_obfuscation: bool | None = None


class PromptRef(Strict):
    id: str = Field(min_length=1)
    version: str | None = None
    variables: dict[str, Any] | None = None


class ConversationRef(Strict):
    id: str = Field(min_length=1)


def _metadata(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None and (
        len(value) > 16
        or not all(isinstance(v, str) and len(k) <= 64 and len(v) <= 512 for k, v in value.items())
    ):
        raise PydanticCustomError(
            "invalid_value",
            "'metadata' holds at most 16 string values (keys up to 64, values up to 512 characters).",
        )
    return value


class ContextCompaction(Strict):
    """`context_management`'s one kind: compact the earlier turns once the input passes the threshold."""

    type: Literal["compaction"]
    compact_threshold: int | None = Field(default=None, ge=1)


class CreateResponse(Strict):
    """The body of `POST /v1/responses`: every parameter of the current Responses API."""

    model: str = Field(min_length=1, max_length=256)
    input: Annotated[
        Annotated[str, Tag("~text")] | Annotated[list[InputItem], Tag("~items")], Discriminator(_input_tag)
    ]
    instructions: str | None = None
    previous_response_id: NonEmpty | None = None
    tools: list[Tool] = Field(default_factory=list)
    tool_choice: ToolChoice = "auto"
    text: TextOptions | None = None
    reasoning: ReasoningOptions | None = None
    include: list[Includable] | None = None
    stream: bool | None = False
    stream_options: StreamOptions | None = None
    max_output_tokens: int | None = Field(default=None, ge=16)
    max_tool_calls: int | None = Field(default=None, ge=0)
    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)  # NaN: no number
    top_p: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    top_logprobs: int | None = Field(default=None, ge=0, le=20)
    # Open Responses requires both on every response; the sandbox's engines echo them and sample without them.
    presence_penalty: float | None = Field(default=None, ge=-2, le=2, allow_inf_nan=False)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2, allow_inf_nan=False)
    truncation: Literal["auto", "disabled"] | None = None
    store: bool | None = True
    metadata: dict[str, Any] | None = None
    parallel_tool_calls: bool | None = None
    service_tier: Literal["auto", "default", "flex", "scale", "priority", "fast", "ultrafast"] | None = None
    background: bool | None = None
    user: str | None = Field(default=None, max_length=512)
    safety_identifier: str | None = Field(default=None, max_length=512)
    prompt_cache_key: str | None = Field(default=None, max_length=512)
    prompt_cache_retention: Literal["in_memory", "24h"] | None = None
    prompt: PromptRef | None = None
    conversation: NonEmpty | ConversationRef | None = None
    client_metadata: dict[str, Any] | None = None  # the Codex CLI's; echoed
    context_management: list[ContextCompaction] | None = Field(default=None, max_length=1)
    # Parameters of the newest client with no effect here: accepted as objects, not echoed.
    access_programs: dict[str, Any] | None = None
    background_options: dict[str, Any] | None = None
    image: dict[str, Any] | None = None
    moderation: dict[str, Any] | None = None
    prompt_cache_options: dict[str, Any] | None = None

    _check_metadata = field_validator("metadata")(_metadata)

    @field_validator("input")
    @classmethod
    def _non_empty(cls, value: str | list[Any]) -> str | list[Any]:
        if isinstance(value, list) and not value:
            raise PydanticCustomError(
                "invalid_type", "'input' must be a string or a non-empty array of items."
            )
        return value


# --- query strings (strings on the wire: validated in lax mode, then checked strictly where it matters) ---


class ItemsQuery(BaseModel):
    """`GET /v1/responses/{id}/input_items?after=&limit=&order=` (`include[]` is accepted, with no effect)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    after: str | None = Field(default=None, min_length=1)
    include: str | None = Field(default=None, alias="include[]")
    limit: int = Field(default=20, ge=1, le=100)
    order: Literal["asc", "desc"] = "desc"
