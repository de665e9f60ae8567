"""Transport: base URL, auth, timeouts, retries, TLS and proxy, in one place. Resources only bind verbs.

One `httpx.AsyncClient` per profile, made once and closed with `aclose()`.
"""

from __future__ import annotations

import asyncio
import json
import random
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from . import defaults
from .errors import (
    ApiError,
    ConnectionFailed,
    InvalidResponse,
    RateLimited,
    StatusError,
    TimedOut,
    TlsFailed,
    status_error,
)

KeyKind = Literal["api", "admin", "none"]


@dataclass
class ConnectionSettings:
    """How to reach one service. Keys live here only in memory; they come from the keychain."""

    base_url: str
    api_key: str | None = None
    admin_key: str | None = None
    ca_bundle: Path | None = None
    client_cert: Path | None = None
    client_key: Path | None = None
    client_key_password: str | None = field(default=None, repr=False)
    proxy: str | None = None
    trust_env: bool = True  # HTTP(S)_PROXY / NO_PROXY from the environment when no proxy is set
    forwarded_for: str | None = None  # the sandbox profile's simulated source IP
    max_retries: int = defaults.MAX_RETRIES

    def __repr__(self) -> str:  # never show keys, even in a debugger or a log line
        return (
            f"ConnectionSettings(base_url={self.base_url!r}, api_key={'***' if self.api_key else None}, "
            f"admin_key={'***' if self.admin_key else None})"
        )


def validate_base_url(url: str) -> str:
    """A clear error for a base URL that cannot be one; returns it without a trailing slash."""
    url = url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ApiError(f"'{url}' is not a URL: it should look like https://api.example.com/v1.")
    try:
        _ = parts.port
    except ValueError:
        raise ApiError(f"'{url}' has an invalid port.") from None
    return url


def ssl_context(settings: ConnectionSettings) -> ssl.SSLContext | bool:
    if not (settings.ca_bundle or settings.client_cert):
        return True
    try:
        context = ssl.create_default_context(cafile=str(settings.ca_bundle) if settings.ca_bundle else None)
        if settings.client_cert:
            context.load_cert_chain(
                str(settings.client_cert),
                str(settings.client_key) if settings.client_key else None,
                settings.client_key_password,
            )
    except FileNotFoundError as error:
        raise TlsFailed(f"A TLS file is missing: {error.filename}.") from None
    except ssl.SSLError as error:
        raise TlsFailed(
            f"The client certificate or key could not be loaded (wrong passphrase?): {error.reason}."
        ) from None
    return context


def _connection_error(error: httpx.HTTPError, url: str) -> ApiError:
    text = str(error) or type(error).__name__
    if isinstance(error, httpx.TimeoutException):
        return TimedOut(f"{url} did not answer in time ({type(error).__name__}).")
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        return TlsFailed(
            f"The server's certificate is not trusted ({text}). Add its CA bundle to the profile."
        )
    if any(word in text for word in ("SSL", "TLS", "certificate", "tlsv1 alert")):
        return TlsFailed(f"The TLS handshake with {url} failed: {text}. Check the client certificate.")
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError):
        return ConnectionFailed(f"The connection to {url} was lost: {text}.")
    return ConnectionFailed(f"Cannot reach {url}: {text}. Is the server running?")


def _decode(response: httpx.Response, content: bytes) -> Any:
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or content.lstrip()[:1] == b"<":
        raise InvalidResponse(
            f"{response.request.url} answered a web page, not the API: check that the base URL ends in /v1."
        )
    try:
        return json.loads(content) if content else None
    except ValueError:
        raise InvalidResponse(f"{response.request.url} answered something that is not JSON.") from None


class Transport:
    def __init__(self, settings: ConnectionSettings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self.base_url = validate_base_url(settings.base_url)
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(
                defaults.READ_TIMEOUT,
                connect=defaults.CONNECT_TIMEOUT,
                write=defaults.WRITE_TIMEOUT,
                pool=defaults.POOL_TIMEOUT,
            ),
            verify=ssl_context(settings),
            proxy=settings.proxy or None,
            trust_env=settings.trust_env and not settings.proxy,
            headers={"user-agent": defaults.USER_AGENT},
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    def headers(self, key: KeyKind) -> dict[str, str]:
        headers: dict[str, str] = {}
        secret = {"api": self.settings.api_key, "admin": self.settings.admin_key}.get(key)
        if secret:
            headers["authorization"] = f"Bearer {secret}"
        if self.settings.forwarded_for:
            headers["x-forwarded-for"] = self.settings.forwarded_for
        return headers

    def url(self, path: str) -> str:
        return path if path.startswith("http") else f"{self.base_url}{path}"

    async def _backoff(self, attempt: int, error: ApiError | None) -> None:
        delay = min(defaults.BACKOFF_MAX, defaults.BACKOFF_BASE * 2**attempt) * (0.5 + random.random() / 2)
        if isinstance(error, RateLimited) and error.retry_after is not None:
            delay = min(defaults.RETRY_AFTER_MAX, error.retry_after)
        await asyncio.sleep(delay)

    async def request(
        self,
        method: str,
        path: str,
        *,
        key: KeyKind = "api",
        json_body: Any = None,
        params: dict[str, str] | None = None,
        retries: int | None = None,
    ) -> tuple[Any, httpx.Headers]:
        """Send one request, retrying 408/429/5xx and connection failures with backoff."""
        retries = self.settings.max_retries if retries is None else retries
        url = self.url(path)
        for attempt in range(retries + 1):
            try:
                response = await self._client.request(
                    method, url, json=json_body, params=params, headers=self.headers(key)
                )
            except httpx.HTTPError as error:
                failure = _connection_error(error, url)
                # A read timeout on a POST may have been processed: only a failed connect is safe to repeat.
                safe = method == "GET" or isinstance(error, httpx.ConnectError | httpx.ConnectTimeout)
                if attempt < retries and safe and not isinstance(failure, TlsFailed):
                    await self._backoff(attempt, failure)
                    continue
                raise failure from None
            body = _decode(response, response.content)
            if response.status_code < 400:
                return body, response.headers
            error_ = status_error(response.status_code, body, dict(response.headers))
            if attempt < retries and response.status_code in defaults.RETRYABLE_STATUSES:
                await self._backoff(attempt, error_)
                continue
            raise error_
        raise AssertionError("unreachable")

    @asynccontextmanager
    async def open_stream(
        self, path: str, body: Any, *, key: KeyKind = "api"
    ) -> AsyncIterator[httpx.Response]:
        """POST and yield the open streaming response once it answered 200; retried only before that."""
        url = self.url(path)
        retries = self.settings.max_retries
        for attempt in range(retries + 1):
            request = self._client.build_request(
                "POST", url, json=body, headers={**self.headers(key), "accept": "text/event-stream"}
            )
            try:
                response = await self._client.send(request, stream=True)
            except httpx.HTTPError as error:
                failure = _connection_error(error, url)
                if (
                    attempt < retries
                    and isinstance(error, httpx.ConnectError)
                    and not isinstance(failure, TlsFailed)
                ):
                    await self._backoff(attempt, failure)
                    continue
                raise failure from None
            if response.status_code >= 400:
                try:
                    content = await response.aread()
                finally:
                    await response.aclose()
                error_: StatusError = status_error(
                    response.status_code, _decode(response, content), dict(response.headers)
                )
                if attempt < retries and response.status_code in defaults.RETRYABLE_STATUSES:
                    await self._backoff(attempt, error_)
                    continue
                raise error_
            try:
                yield response
            finally:
                await response.aclose()
            return
