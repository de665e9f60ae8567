"""A project's rate limits (Admin API, admin key): requests and tokens per minute, for the whole project
(`rl-project`) and per model (`rl-<model>`); None is no limit (docs/contract.md, "Usage and costs")."""

from __future__ import annotations

from typing import Any

from .admin import parse
from .transport import Transport
from .wire import WireModel


class RateLimit(WireModel):
    id: str
    model: str | None = None
    max_requests_per_1_minute: int | None = None
    max_tokens_per_1_minute: int | None = None


class RateLimits:
    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    def _path(self, project_id: str) -> str:
        return f"/organizations/{self.org_id}/projects/{project_id}/rate_limits"

    async def list(self, project_id: str) -> list[RateLimit]:
        result, _ = await self._transport.request("GET", self._path(project_id), key="admin")
        data = result.get("data") if isinstance(result, dict) else None
        return [parse(RateLimit, item, "a rate limit") for item in data or ()]

    async def set(self, project_id: str, limit_id: str, counts: dict[str, Any]) -> RateLimit:
        """Change the counts given (None removes that limit); the others keep their values."""
        path = f"{self._path(project_id)}/{limit_id}"
        result, _ = await self._transport.request("POST", path, key="admin", json_body=counts)
        return parse(RateLimit, result, "a rate limit")
