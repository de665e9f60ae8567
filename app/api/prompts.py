"""The Admin API's stored prompts: each prompt of the organization and its immutable versions.

A save is a new version (`add_version`); nothing here changes a version. Versions are the service's strings
("1", "2", ...). A write whose connection drops before any answer is not sent again: a second save would be
a second version.
"""

from __future__ import annotations

from typing import Any, TypedDict

from pydantic import Field, ValidationError, field_validator

from .errors import InvalidResponse
from .transport import Transport
from .wire import WireModel, problem


class StoredPrompt(WireModel):
    """One version of a stored prompt, as the service answers it."""

    id: str
    version: str
    name: str = ""
    instructions: str | None = None
    input: str | list[dict[str, Any]] | None = None
    model: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    variables: tuple[str, ...] = ()
    note: str = ""
    created_at: int = 0

    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @field_validator("options", "note", mode="before")
    @classmethod
    def _no_null(cls, value: Any, info: Any) -> Any:
        return ({} if info.field_name == "options" else "") if value is None else value


class PromptBody(TypedDict, total=False):
    """What a save sends: a new prompt needs `name`; `instructions`, `input` or both."""

    name: str
    instructions: str
    input: str | list[dict[str, Any]]
    model: str
    options: dict[str, Any]
    note: str


def _one(data: Any) -> StoredPrompt:
    if not isinstance(data, dict):
        raise InvalidResponse("The server sent a prompt that is not a JSON object.")
    try:
        return StoredPrompt.model_validate(data)
    except ValidationError as error:
        raise InvalidResponse(
            f"The server sent a prompt the console cannot read ({problem(error)})."
        ) from None


def _many(data: Any) -> list[StoredPrompt]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidResponse("The server's list of prompts is not a list ({'data': [...]} was expected).")
    return [_one(item) for item in items]


class Prompts:
    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    @property
    def _base(self) -> str:
        return f"/organizations/{self.org_id}/prompts"

    async def latest(self, search: str = "") -> list[StoredPrompt]:
        """The latest version of each prompt, the most recently saved first."""
        params = {"search": search} if search else None
        result, _ = await self._transport.request("GET", self._base, key="admin", params=params)
        return _many(result)

    async def create(self, body: PromptBody) -> StoredPrompt:
        result, _ = await self._transport.request("POST", self._base, key="admin", json_body=body)
        return _one(result)

    async def add_version(self, prompt_id: str, body: PromptBody) -> StoredPrompt:
        result, _ = await self._transport.request(
            "POST", f"{self._base}/{prompt_id}/versions", key="admin", json_body=body
        )
        return _one(result)

    async def versions(self, prompt_id: str) -> list[StoredPrompt]:
        """Every version, the newest first."""
        result, _ = await self._transport.request("GET", f"{self._base}/{prompt_id}/versions", key="admin")
        return _many(result)

    async def retrieve(self, prompt_id: str, version: str | None = None) -> StoredPrompt:
        path = f"{self._base}/{prompt_id}" + (f"/versions/{version}" if version else "")
        result, _ = await self._transport.request("GET", path, key="admin")
        return _one(result)
