"""The contract of the allowlists' traffic record: `GET .../ip_allowlist/refused` and `.../sources`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MAX_SECONDS = 4_102_444_800  # before 2100, as an entry's expiry


class RefusedQuery(BaseModel):
    """`?since=` (Unix seconds: refusals last seen at or after it) `&limit=` (oldest first)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    since: int = Field(default=0, ge=0, lt=MAX_SECONDS)
    limit: int = Field(default=100, ge=1, le=1000)


class SourcesQuery(BaseModel):
    """`?since=` (Unix seconds, counted in whole days): the sources a list admitted since then."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    since: int = Field(default=0, ge=0, lt=MAX_SECONDS)
