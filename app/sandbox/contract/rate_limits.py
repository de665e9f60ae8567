"""The contract of a project's rate limits (Admin API, admin key): `GET .../projects/{id}/rate_limits` and
`POST .../projects/{id}/rate_limits/{rate_limit_id}` with the counts to change (null removes a limit)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MOST = 1_000_000_000  # a limit beyond any minute's traffic


class RateLimitUpdate(BaseModel):
    """The counts to change; a field left out keeps its value, null removes that limit."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    max_requests_per_1_minute: int | None = Field(default=None, ge=1, le=MOST)
    max_tokens_per_1_minute: int | None = Field(default=None, ge=1, le=MOST)
