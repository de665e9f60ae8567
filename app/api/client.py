"""The service client of one profile: transport plus resources."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Self

import httpx

from .admin import Allowlists
from .audit_log import AuditLog
from .budgets import Budgets
from .errors import InvalidResponse
from .keys import Keys
from .mtls import Certificates
from .prompts import Prompts
from .rate_limits import RateLimits
from .resources import Responses
from .transport import ConnectionSettings, KeyKind, Transport
from .usage import Usage

if TYPE_CHECKING:  # websockets loads with the first socket, in WebSocket mode only
    from .socket_mode import ResponsesSocket


@dataclass(frozen=True)
class ModelInfo:
    id: str
    owned_by: str
    calls_functions: bool | None = None  # None: the server does not say (the hosted service's models do)


class ServiceClient:
    """The API of one profile: its transport (one connection pool) and the resources bound to it.

    `async with ServiceClient(settings) as client:` closes the pool on leaving the block, however it is left;
    a client kept for a profile's whole life (the session's) is closed with `aclose()` when that ends."""

    def __init__(
        self, settings: ConnectionSettings, org_id: str = "", http: httpx.AsyncClient | None = None
    ) -> None:
        self.transport = Transport(settings, http)
        self.responses = Responses(self.transport)
        self.allowlists = Allowlists(self.transport, org_id)
        self.audit_log = AuditLog(self.transport, org_id)
        self.keys = Keys(self.transport, org_id)
        self.certificates = Certificates(self.transport, org_id)
        self.prompts = Prompts(self.transport, org_id)
        self.usage = Usage(self.transport, org_id)
        self.rate_limits = RateLimits(self.transport, org_id)
        self.budgets = Budgets(self.transport, org_id)
        self._sockets: set[ResponsesSocket] = set()  # the open ones: closed with the client

    def responses_socket(self) -> ResponsesSocket:
        """A WebSocket to `/responses` (WebSocket mode), opened with its first request; closed with the
        client if not before."""
        from .socket_mode import ResponsesSocket

        return ResponsesSocket(self.transport, self._sockets)

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    def has_key(self, kind: KeyKind) -> bool:
        """Whether this profile has the key (`api` or `admin`); the key itself stays in the transport."""
        return bool(
            {"api": self.transport.settings.api_key, "admin": self.transport.settings.admin_key}.get(kind)
        )

    def set_played_ip(self, ip: str | None) -> None:
        """The sandbox profile's Play IP, from the next request on: the API key's requests (the Playground's)
        appear to come from it; the admin key's keep the console's own address."""
        self.transport.settings.played_ip = ip

    async def models(self) -> list[str]:
        return [model.id for model in await self.model_list()]

    async def model_list(self) -> list[ModelInfo]:
        """The models with who serves them (`owned_by`: the local sandbox names the weights file there)."""
        body, _ = await self.transport.request("GET", "/models")
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise InvalidResponse("The server's model list is not a list ({'data': [...]} was expected).")
        return [
            ModelInfo(str(item["id"]), str(item.get("owned_by") or ""), _calls_functions(item))
            for item in data
            if isinstance(item, dict) and "id" in item
        ]

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool and any socket; closing twice is harmless."""
        for socket in list(self._sockets):
            await socket.aclose()
        await self.transport.aclose()


def _calls_functions(item: dict[str, Any]) -> bool | None:
    """What a model entry says of function calling (the sandbox says it; other servers may not)."""
    capabilities = item.get("capabilities")
    value = capabilities.get("function_calling") if isinstance(capabilities, dict) else None
    return value if isinstance(value, bool) else None
