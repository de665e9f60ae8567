"""Typed bodies of the requests the console sends (TypedDicts: plain JSON at run time, checked by mypy).

Named as the official SDKs name them, `...Param` and `...Params` (ResponseCreateParams, FunctionToolParam):
what the console sends, apart from the models of what it reads (wire.py) and from the sandbox's models that
validate the same shapes on arrival.

Only typing here, no httpx or pydantic: the Playground builds these before the network stack is loaded.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required, TypedDict

# A JSON Schema is arbitrary JSON the person typed: an object whose values the console does not type.
JsonSchema = dict[str, Any]


class InputTextParam(TypedDict):
    type: Literal["input_text"]
    text: str


class InputImageParam(TypedDict):
    type: Literal["input_image"]
    image_url: str  # a data URL (checked and scaled) or a remote URL


class UserMessage(TypedDict):
    role: Literal["user"]
    content: str | list[InputTextParam | InputImageParam]


class AssistantMessage(TypedDict):
    """An earlier answer sent back as history: plain text, which every server accepts (servers that translate
    to chat completions refuse output_text parts)."""

    role: Literal["assistant"]
    content: str


InputMessage = UserMessage | AssistantMessage


class FunctionCallInput(TypedDict):
    """A function call the model made, sent back as history."""

    type: Literal["function_call"]
    call_id: str
    name: str
    arguments: str  # the JSON text the model wrote


class FunctionCallOutput(TypedDict):
    type: Literal["function_call_output"]
    call_id: str
    output: str


InputItem = UserMessage | AssistantMessage | FunctionCallInput | FunctionCallOutput


class ReasoningParam(TypedDict):
    effort: str


class WebSearchToolParam(TypedDict):
    type: Literal["web_search_preview"]


class FunctionToolParam(TypedDict):
    type: Literal["function"]
    name: str
    description: NotRequired[str]
    parameters: JsonSchema
    strict: bool


class NamedFunction(TypedDict):
    """tool_choice naming the one function to call."""

    type: Literal["function"]
    name: str


ToolChoiceParam = Literal["none", "auto", "required"] | NamedFunction


class JsonSchemaFormat(TypedDict):
    type: Literal["json_schema"]
    name: str
    schema: JsonSchema
    strict: bool


class TextParam(TypedDict):
    format: JsonSchemaFormat


class PromptParam(TypedDict):
    """A stored prompt's version and the values of its `{{variables}}`, which the service fills in."""

    id: str
    version: str
    variables: dict[str, str]


class ResponseCreateParams(TypedDict, total=False):
    """POST /responses."""

    model: Required[str]
    input: Required[str | list[InputItem]]
    previous_response_id: str
    instructions: str
    temperature: float
    top_p: float
    max_output_tokens: int
    reasoning: ReasoningParam
    tools: list[WebSearchToolParam | FunctionToolParam]
    tool_choice: ToolChoiceParam
    parallel_tool_calls: bool
    text: TextParam
    stream: bool
    prompt: PromptParam


class EntryCreateParams(TypedDict):
    """POST …/ip_allowlist/entries."""

    cidr: str
    description: NotRequired[str]
    expires_at: NotRequired[int]  # Unix seconds; absent: never expires


class EntryUpdateParams(TypedDict):
    """PATCH …/ip_allowlist/entries/{id}."""

    expires_at: int | None  # None: never expires
    description: NotRequired[str]


class AllowlistUpdateParams(TypedDict):
    """PATCH …/ip_allowlist."""

    enabled: bool
