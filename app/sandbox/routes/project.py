"""The project a Responses or Conversations API request works in: its key's, as the gateway found it."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from app.sandbox.errors import ServiceError
from app.sandbox.gateway.context import RequestContext


def project_of(request: HTTPConnection) -> str:
    context: RequestContext = request.scope["state"]["gateway"]
    if context.key.kind != "project" or context.key.project_id is None:
        raise ServiceError(
            403,
            "An admin key cannot call the Responses API: use a project API key.",
            "insufficient_permissions",
        )
    return context.key.project_id
