"""The contract of stored prompts (Admin API `/v1/organizations/{org_id}/prompts`): the bodies that create a
prompt or its next version, and the list's query.

A version holds the instructions and the input (a string: one user message; or messages) with their
`{{variables}}`, and optionally the model and the options a response takes from it (sampling, tools, the
output format). The options are checked again, as a response's own, when a response uses the prompt.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag

from app.sandbox.contract.responses import Strict

MAX_TEXT = 100_000  # characters of instructions or of one message: a prompt, not a document


def _content_tag(value: Any) -> str:
    return "~text" if isinstance(value, str) else "~parts"


class PromptMessage(Strict):
    """One message of a prompt's input: its text as a string, or parts (input_text, input_image)."""

    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: Annotated[
        Annotated[str, Tag("~text"), Field(max_length=MAX_TEXT)]
        | Annotated[list[dict[str, Any]], Tag("~parts"), Field(min_length=1)],
        Discriminator(_content_tag),
    ]


def _input_tag(value: Any) -> str:
    return "~text" if isinstance(value, str) else "~messages"


class PromptOptions(Strict):
    """What a response takes from the prompt when its own request does not give it."""

    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)
    top_p: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    max_output_tokens: int | None = Field(default=None, ge=16)
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    text: dict[str, Any] | None = None
    reasoning: dict[str, Any] | None = None


class PromptVersionCreate(Strict):
    """`POST …/prompts/{id}/versions`: the next version; a name not given keeps the prompt's."""

    name: str | None = Field(default=None, min_length=1, max_length=256)
    instructions: str | None = Field(default=None, max_length=MAX_TEXT)
    input: (
        Annotated[
            Annotated[str, Tag("~text"), Field(max_length=MAX_TEXT)]
            | Annotated[list[PromptMessage], Tag("~messages"), Field(min_length=1, max_length=100)],
            Discriminator(_input_tag),
        ]
        | None
    ) = None
    model: str | None = Field(default=None, min_length=1, max_length=256)
    options: PromptOptions | None = None
    note: str | None = Field(default=None, max_length=512)


class PromptCreate(PromptVersionCreate):
    """`POST /v1/organizations/{org_id}/prompts`: a new prompt, its version "1"."""

    name: str = Field(min_length=1, max_length=256)


class PromptListQuery(BaseModel):
    """`GET …/prompts?search=`: prompts whose name, instructions or input hold `search` (any case)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    search: str | None = Field(default=None, max_length=256)
