"""Typed errors of the API client: connection and timeout apart from status errors, one class per status."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class ErrorCode(StrEnum):
    """The service's error codes the console acts on. A code it does not know is kept as its text (`code_of`),
    so a newer service's codes still reach the person."""

    IP_NOT_ALLOWED = "ip_not_allowed"  # 403: the allowlist refused the caller's address
    INVALID_API_KEY = "invalid_api_key"
    INSUFFICIENT_PERMISSIONS = "insufficient_permissions"  # a project key on the Admin API
    RATE_LIMIT_EXCEEDED = "rate_limit_exceeded"
    # 409: the change would lock the caller out; ?force=true sends it anyway.
    WOULD_BLOCK_CALLER = "would_block_caller"
    TOO_MANY_ENTRIES = "too_many_entries"  # the list is full
    DUPLICATE_ENTRY = "duplicate_entry"
    INVALID_CIDR = "invalid_cidr"
    ENTRY_NOT_FOUND = "entry_not_found"
    PROJECT_NOT_FOUND = "project_not_found"


def code_of(value: object) -> ErrorCode | str | None:
    """A code from an error body: the known member, an unknown one as its text, None when absent."""
    if value is None:
        return None
    text = str(value)
    try:
        return ErrorCode(text)
    except ValueError:
        return text


class ApiError(Exception):
    """Anything that went wrong talking to the service; `str()` is a sentence a person can act on."""


class ConnectionFailed(ApiError):
    """The server could not be reached (refused, DNS, reset, dropped mid-stream)."""


class TlsFailed(ConnectionFailed):
    """The TLS handshake failed: unknown CA, wrong or missing client certificate."""


class ClientCertificateProblem(TlsFailed):
    """Mutual TLS went wrong: no certificate sent, a key that would not open, or a proxy that re-signs TLS
    standing between the console and a server that asks for the console's certificate. Never retried."""


class ProxyFailed(ConnectionFailed):
    """The proxy itself answered or failed (not the service): `str()` names it."""


class ProxyAuthRequired(ProxyFailed):
    """407: the proxy wants credentials, or refused the ones given. Never retried: it cannot succeed."""


class ProxyRefused(ProxyFailed):
    """The proxy's own rules refused the destination (a 403 to CONNECT): never the service's allowlist."""


class ProxySchemeWrong(ProxyFailed):
    """The Proxy URL's scheme is not what the proxy speaks (https:// for a plain HTTP proxy). Never retried."""


class ProxyUnreachable(ProxyFailed):
    """No connection to the proxy itself (down, wrong host or port)."""


class TimedOut(ConnectionFailed):
    """No answer in time: the connection failed to bring one (as anthropic's APITimeoutError is an
    APIConnectionError), so whoever handles a lost connection handles this too."""


class InvalidResponse(ApiError):
    """The server answered something that is not the API (HTML, broken JSON, a malformed event)."""


class StatusError(ApiError):
    """An HTTP error status with the service's error body."""

    status = 0

    def __init__(
        self,
        status: int,
        message: str,
        code: ErrorCode | str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code_of(code)
        self.param = param
        self.headers = headers or {}
        self.body = body

    @property
    def source_ip(self) -> str | None:
        """The IP the gateway saw (X-Request-Source-IP), when an allowlist applied."""
        return self.headers.get("x-request-source-ip")

    def __str__(self) -> str:
        return f"{self.status}: {self.message}"


class BadRequest(StatusError):
    status = 400


class Unauthorized(StatusError):
    status = 401


class Forbidden(StatusError):
    status = 403


class IpNotAllowed(Forbidden):
    """403 ip_not_allowed: the allowlist refused the address in `source_ip`."""


class NotFound(StatusError):
    status = 404


class Conflict(StatusError):
    status = 409


class PreconditionFailed(StatusError):
    """412 precondition_failed: the resource changed since it was read (If-Match named an earlier version).
    The body may carry it as it stands; the resource that asked reads it (`app.api.admin.AllowlistChanged`)."""

    status = 412


class PayloadTooLarge(StatusError):
    status = 413


class RateLimited(StatusError):
    status = 429

    @property
    def retry_after(self) -> float | None:
        return retry_after(self.headers)


def retry_after(headers: dict[str, str]) -> float | None:
    """Seconds from a Retry-After header: a number, or an HTTP date; None when absent or unreadable."""
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from datetime import UTC, datetime  # here: datetime costs ~2 ms before the first frame
    from email.utils import parsedate_to_datetime

    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - datetime.now(UTC)).total_seconds())


class ServerError(StatusError):
    status = 500


class StreamError(ApiError):
    """The server sent an `error` event after the stream began."""

    def __init__(self, message: str, code: ErrorCode | str | None = None) -> None:
        super().__init__(message)
        self.code = code_of(code)


_BY_STATUS: dict[int, type[StatusError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    412: PreconditionFailed,
    413: PayloadTooLarge,
    429: RateLimited,
}


class UnansweredWrite(ConnectionFailed):
    """A write's connection dropped before any of the answer arrived, and resending it was not safe."""


def status_error(status: int, body: Any, headers: dict[str, str], what: str = "") -> StatusError:
    """The typed error of a status; `what` says what the body was when it was not the API's error JSON."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        message = str(error.get("message") or f"HTTP {status}")
        code, param = code_of(error.get("code")), error.get("param")
        param = None if param is None else str(param)
    else:
        message = f"The server answered HTTP {status}{f' ({what})' if what else ''}."
        code, param = None, None
    if status == 403 and code == ErrorCode.IP_NOT_ALLOWED:
        kind: type[StatusError] = IpNotAllowed
    elif status >= 500:
        kind = ServerError
    else:
        kind = _BY_STATUS.get(status, StatusError)
    return kind(status, message, code, param, headers, body)
