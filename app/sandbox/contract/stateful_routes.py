"""The request contract of the stateful routes: conversations, background runs, token counting.

Kept beside responses.py (which holds `POST /v1/responses`) so that each file stays about one thing; items
and tools are responses.py's own types, used here as they are.
"""

from __future__ import annotations

from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from app.sandbox.contract.responses import CreateResponse, Includable, InputItem, Strict, _metadata

MAX_ITEMS = 20  # items added at a time, as the hosted service allows


class ConversationCreate(Strict):
    """The body of `POST /v1/conversations`."""

    items: list[InputItem] | None = Field(default=None, max_length=MAX_ITEMS)
    metadata: dict[str, Any] | None = None

    _check_metadata = field_validator("metadata")(_metadata)


class ConversationUpdate(Strict):
    """The body of `POST /v1/conversations/{id}`: the metadata, replaced whole (null clears it)."""

    metadata: dict[str, Any] | None

    _check_metadata = field_validator("metadata")(_metadata)


class ItemsAdd(Strict):
    """The body of `POST /v1/conversations/{id}/items`."""

    items: list[InputItem] = Field(min_length=1, max_length=MAX_ITEMS)


class _Query(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class ConversationItemsQuery(_Query):
    """`GET /v1/conversations/{id}/items?after=&limit=&order=&include[]=` (include may repeat)."""

    after: str | None = Field(default=None, min_length=1)
    include: list[Includable] = Field(default_factory=list, alias="include[]")
    limit: int = Field(default=20, ge=1, le=100)
    order: Literal["asc", "desc"] = "desc"


class IncludeQuery(_Query):
    """`?include[]=` on the item routes that answer items (add, retrieve)."""

    include: list[Includable] = Field(default_factory=list, alias="include[]")


class RetrieveQuery(_Query):
    """`GET /v1/responses/{id}?stream=&starting_after=&include[]=&include_obfuscation=`."""

    stream: Literal["true", "false"] = "false"
    starting_after: int | None = Field(default=None, ge=0)
    include: list[Includable] = Field(default_factory=list, alias="include[]")
    include_obfuscation: Literal["true", "false"] | None = None


# `POST /v1/responses/input_tokens` takes the parameters of a response that decide its input, each typed
# exactly as `POST /v1/responses` types it (so a new tool type there is counted here too); `model` and
# `input` are optional (the first model, and no new input: the history alone).
_SAME_AS_CREATE = (
    "instructions",
    "previous_response_id",
    "conversation",
    "tools",
    "tool_choice",
    "text",
    "reasoning",
    "parallel_tool_calls",
    "truncation",
)
_CREATE = CreateResponse.model_fields
_COUNT_FIELDS: dict[str, Any] = {
    "model": (str | None, Field(default=None, min_length=1, max_length=256)),
    "input": (Optional[_CREATE["input"].annotation], None),  # noqa: UP045 - a runtime type, not an annotation
    "personality": (str | None, Field(default=None, min_length=1, max_length=64)),
    **{name: (_CREATE[name].annotation, _CREATE[name]) for name in _SAME_AS_CREATE},
}
InputTokensRequest: type[Strict] = create_model("InputTokensRequest", __base__=Strict, **_COUNT_FIELDS)

# `POST /v1/responses/compact`: the conversation to compact (its input typed as a response's, history by
# `previous_response_id`), and the options the service takes there, echoed nowhere (no answer carries them).
_COMPACT_FIELDS: dict[str, Any] = {
    "model": (str, Field(min_length=1, max_length=256)),
    "input": (Optional[_CREATE["input"].annotation], None),  # noqa: UP045 - a runtime type, not an annotation
    **{
        name: (_CREATE[name].annotation, _CREATE[name])
        for name in ("instructions", "previous_response_id", "prompt_cache_key", "prompt_cache_retention")
    },
    "service_tier": (_CREATE["service_tier"].annotation, _CREATE["service_tier"]),
    "image": (dict[str, Any] | None, None),
    "prompt_cache_options": (dict[str, Any] | None, None),
}
CompactRequest: type[Strict] = create_model("CompactRequest", __base__=Strict, **_COMPACT_FIELDS)
