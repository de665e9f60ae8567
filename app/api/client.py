"""The service client of one profile: transport plus resources."""

from __future__ import annotations

from typing import Any

import httpx

from .resources import Allowlists, Responses
from .transport import ConnectionSettings, Transport


class ServiceClient:
    def __init__(
        self, settings: ConnectionSettings, org_id: str = "", http: httpx.AsyncClient | None = None
    ) -> None:
        self.transport = Transport(settings, http)
        self.responses = Responses(self.transport)
        self.allowlists = Allowlists(self.transport, org_id)

    async def models(self) -> list[str]:
        body, _ = await self.transport.request("GET", "/models")
        data: list[Any] = body.get("data", []) if isinstance(body, dict) else []
        return [str(item.get("id")) for item in data if isinstance(item, dict)]

    async def aclose(self) -> None:
        await self.transport.aclose()
