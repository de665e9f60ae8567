"""The console's API client: Qt-free, and the only part of the console that imports httpx.

Names are exported lazily (PEP 562): importing `app.api.errors` must not pay for httpx, so the window
can show before the network stack is loaded.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ServiceClient": "client",
    "ConnectionSettings": "transport",
    "ResponseStream": "streaming",
    "collect": "streaming",
    "Event": "events",
    "StreamEvent": "events",
    "TextDeltaEvent": "events",
    "ResponseEvent": "events",
    "OutputItemEvent": "events",
    "ErrorEvent": "events",
    "Response": "wire",
    "ResponseUsage": "wire",
    "OutputMessage": "wire",
    "ReasoningItem": "wire",
    "WebSearchCall": "wire",
    "UrlCitation": "wire",
    "Allowlist": "admin",
    "Entry": "admin",
    "Project": "admin",
    "AllowlistChanged": "admin",
    "AuditEvent": "audit",
    "ApiKey": "keys",
    "CreatedKey": "keys",
    "AuditPage": "audit",
}
_ERRORS = (
    "ApiError",
    "BadRequest",
    "Conflict",
    "ConnectionFailed",
    "Forbidden",
    "InvalidResponse",
    "IpNotAllowed",
    "NotFound",
    "PreconditionFailed",
    "RateLimited",
    "ServerError",
    "StatusError",
    "StreamError",
    "TimedOut",
    "TlsFailed",
    "UnansweredWrite",
    "Unauthorized",
)
_EXPORTS.update({name: "errors" for name in _ERRORS})
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'app.api' has no attribute {name!r}")
    return getattr(importlib.import_module(f"app.api.{module}"), name)
