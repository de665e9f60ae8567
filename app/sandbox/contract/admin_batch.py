"""The contract of `POST .../ip_allowlist/batch`: several changes to one list, made all or none."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from app.sandbox.contract.admin import CIDR_SHAPE, MAX_DESCRIPTION, ExpiresAt
from app.sandbox.contract.responses import Strict

MAX_BATCH_ITEMS = 2000  # per kind of change: twice the default entry limit (a list replaced whole)


class BatchAdd(Strict):
    cidr: str = Field(max_length=100, json_schema_extra={"pattern": CIDR_SHAPE})
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    expires_at: ExpiresAt | None = None


class BatchUpdate(Strict):
    """An entry that stays, with a new expiry (null: never) and maybe a new description."""

    id: str = Field(min_length=1, max_length=64)
    expires_at: ExpiresAt | None
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)


class BatchBody(Strict):
    """`enabled` (omitted: as it is), then entries to add, to update and to remove (by id)."""

    enabled: bool | None = None
    add: list[BatchAdd] = Field(default_factory=list, max_length=MAX_BATCH_ITEMS)
    update: list[BatchUpdate] = Field(default_factory=list, max_length=MAX_BATCH_ITEMS)
    remove: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=MAX_BATCH_ITEMS
    )
