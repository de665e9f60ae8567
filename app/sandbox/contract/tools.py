"""The function-calling part of the request contract: function and namespace tools, tool_choice, and
references to stored items (the function calls and outputs a tool loop sends back are app.schema's).

Kept beside responses.py (which imports it) so that the tool models have one home; tags start with "~" as
there, so validate.py drops them from an error's location.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator
from pydantic_core import PydanticCustomError

from app.common.jsonschema_check import schema_problem

_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)


def _check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise PydanticCustomError(
            "invalid_value", "A function's 'name' must be 1-128 letters, digits, '_', '.' or '-'."
        )
    return name


def _check_parameters(schema: dict[str, Any] | None) -> dict[str, Any] | None:
    if schema is None:
        return None
    problem = schema_problem(schema)
    if problem is not None:
        raise PydanticCustomError(
            "invalid_json_schema", f"A function's 'parameters' is not a valid JSON Schema: {problem[:200]}."
        )
    return schema


class FunctionTool(_Strict):
    """`{"type": "function", "name", "description", "parameters", "strict"}`: a function of the client's."""

    type: Literal["function"]
    name: str
    description: str | None = None
    parameters: dict[str, Any] | None = None
    strict: bool | None = None
    # Fields of the newest client with no effect on a call made here: accepted, echoed.
    defer_loading: bool | None = None
    output_schema: dict[str, Any] | None = None
    allowed_callers: list[Literal["direct", "programmatic"]] | None = None
    async_: bool | None = Field(default=None, alias="async")

    _name = field_validator("name")(_check_name)
    _parameters = field_validator("parameters")(_check_parameters)


class NamespaceTool(_Strict):
    """A named group of function tools (as the Codex CLI sends them); calls carry the group's name."""

    type: Literal["namespace"]
    name: str
    description: str = ""
    tools: list[FunctionTool] = Field(min_length=1)

    _name = field_validator("name")(_check_name)


# --- tool_choice ----------------------------------------------------------------------------------------


class ChoiceFunction(_Strict):
    type: Literal["function"]
    name: str


class ChoiceAllowed(_Strict):
    type: Literal["allowed_tools"]
    mode: Literal["auto", "required"]
    tools: list[dict[str, Any]] = Field(min_length=1)


class ChoiceHosted(_Strict):
    type: Literal["web_search_preview", "web_search_preview_2025_03_11", "web_search"]


def _choice_tag(value: Any) -> str:
    if isinstance(value, str):
        return "~mode"
    kind = value.get("type") if isinstance(value, dict) else None
    return {"function": "~function", "allowed_tools": "~allowed_tools"}.get(str(kind), "~hosted")


ToolChoice = Annotated[
    Annotated[Literal["none", "auto", "required"], Tag("~mode")]
    | Annotated[ChoiceFunction, Tag("~function")]
    | Annotated[ChoiceAllowed, Tag("~allowed_tools")]
    | Annotated[ChoiceHosted, Tag("~hosted")],
    Discriminator(_choice_tag),
]

# --- input items of a tool loop ------------------------------------------------------------------------


class ItemReference(_Strict):
    """`{"type": "item_reference", "id"}`: an item the sandbox stored; the route puts the item in its place."""

    type: Literal["item_reference"] = "item_reference"
    id: str = Field(min_length=1, max_length=256)


def item_tag(value: Any) -> str:
    """The input item's kind: "type" when given; no type with an id and no role is a reference."""
    if not isinstance(value, dict):
        return "~message"
    kind = value.get("type")
    if kind is None:
        return "~item_reference" if "id" in value and "role" not in value else "~message"
    return f"~{kind}" if isinstance(kind, str) else "~?"
