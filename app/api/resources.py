"""Resources bind verbs to paths; the transport does the rest. Answers are parsed into typed models here."""

from __future__ import annotations

from typing import Any

from . import defaults
from .streaming import ResponseStream
from .transport import Transport
from .wire import Response, parse_response


class Responses:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    async def create(self, body: dict[str, Any]) -> Response:
        result, _ = await self._transport.request(
            "POST", "/responses", json_body={**body, "stream": False}, deadline=defaults.GENERATION_DEADLINE
        )
        return parse_response(result)

    def stream(self, body: dict[str, Any]) -> ResponseStream:
        return ResponseStream(self._transport.open_stream("/responses", {**body, "stream": True}))

    async def retrieve(self, response_id: str) -> Response:
        result, _ = await self._transport.request("GET", f"/responses/{response_id}")
        return parse_response(result)


class Allowlists:
    """The Admin API's IP allowlists; `project_id=None` means the organization's list."""

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    def _path(self, project_id: str | None) -> str:
        base = f"/organizations/{self.org_id}"
        return f"{base}/projects/{project_id}/ip_allowlist" if project_id else f"{base}/ip_allowlist"

    async def get(self, project_id: str | None = None) -> dict[str, Any]:
        result, _ = await self._transport.request("GET", self._path(project_id), key="admin")
        return dict(result)

    async def set_enabled(
        self, enabled: bool, project_id: str | None = None, force: bool = False
    ) -> dict[str, Any]:
        params = {"force": "true"} if force else None
        result, _ = await self._transport.request(
            "PATCH",
            self._path(project_id),
            key="admin",
            json_body={"enabled": enabled},
            params=params,
            retries=0,
        )
        return dict(result)

    async def add(self, cidr: str, description: str = "", project_id: str | None = None) -> dict[str, Any]:
        body = {"cidr": cidr, **({"description": description} if description else {})}
        result, _ = await self._transport.request(
            "POST", f"{self._path(project_id)}/entries", key="admin", json_body=body, retries=0
        )
        return dict(result)

    async def remove(
        self, entry_id: str, project_id: str | None = None, force: bool = False
    ) -> dict[str, Any]:
        params = {"force": "true"} if force else None
        result, _ = await self._transport.request(
            "DELETE", f"{self._path(project_id)}/entries/{entry_id}", key="admin", params=params, retries=0
        )
        return dict(result)

    async def projects(self) -> list[dict[str, Any]]:
        result, _ = await self._transport.request(
            "GET", f"/organizations/{self.org_id}/projects", key="admin"
        )
        return list(result.get("data", [])) if isinstance(result, dict) else []
