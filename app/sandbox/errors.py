"""Errors in the service's shape: {"error": {message, type, param, code}} (docs/contract.md)."""

from __future__ import annotations

import json
from typing import Any

TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    405: "invalid_request_error",
    409: "conflict_error",
    412: "conflict_error",
    413: "invalid_request_error",
    415: "invalid_request_error",
    429: "rate_limit_error",
}


def quote(value: object, limit: int = 60) -> str:
    """An input shown in a message: at most a short prefix, so an error never echoes a huge body back."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def one_line(text: str, limit: int = 2000) -> str:
    """A reason as one line: a traceback that came with it dropped, whitespace folded, bounded."""
    text = text.split("Traceback (most recent call last)")[0]
    return quote(" ".join(text.split()) or "no reason given", limit)


class ServiceError(Exception):
    """Raised by the sandbox's handlers; turned into a JSON error response by the app's exception handler.

    (The console's own client has `app.api.errors.ApiError`; this is the server side.)
    """

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param
        self.headers = headers or {}
        self.extra = extra or {}  # beside "error" in the body (a 412's current list)

    def body(self) -> dict[str, Any]:
        return {**error_body(self.status, self.message, self.code, self.param), **self.extra}


def error_body(
    status: int, message: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    kind = TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_bytes(status: int, message: str, code: str | None = None, param: str | None = None) -> bytes:
    return json.dumps(error_body(status, message, code, param), separators=(",", ":")).encode()
