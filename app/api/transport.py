"""Transport: base URL, auth, timeouts, retries, TLS and proxy, in one place. Resources only bind verbs.

One `httpx.AsyncClient` per profile, made once and closed with `aclose()`.
"""

from __future__ import annotations

import asyncio
import json
import random
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from app.common.proxy_url import BadProxyUrl, parse_proxy_url

from . import defaults
from .errors import (
    ApiError,
    ClientCertificateProblem,
    InvalidResponse,
    ProxyAuthRequired,
    ProxyRefused,
    StatusError,
    TimedOut,
    TlsFailed,
    UnansweredWrite,
    retry_after,
    status_error,
)
from .network_errors import Route, connection_error, route_for, status_through_proxy

KeyKind = Literal["api", "admin", "none"]
# Asked before a write whose connection dropped unanswered is sent again: True if resending is safe.
ResendCheck = Callable[[], Awaitable[bool]]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def always_resend() -> bool:
    """The ResendCheck of a write that is idempotent (PATCH enabled=…, DELETE by id)."""
    return True


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
    request_deadline: float = defaults.REQUEST_DEADLINE
    # A stream's wait for the answer's head: a buffering proxy sends nothing until the whole answer is there.
    first_byte_deadline: float = defaults.FIRST_BYTE_DEADLINE

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
    except FileNotFoundError as error:
        raise TlsFailed(f"A TLS file is missing: {error.filename}.") from None
    except ssl.SSLError:
        raise TlsFailed(f"The CA bundle {settings.ca_bundle} holds no PEM certificate.") from None
    if settings.client_cert:
        # A callable, even for no passphrase: with None, OpenSSL would ask for one on the terminal.
        password = settings.client_key_password or ""
        try:
            context.load_cert_chain(
                str(settings.client_cert),
                str(settings.client_key) if settings.client_key else None,
                lambda: password,
            )
        except FileNotFoundError as error:
            raise TlsFailed(f"A TLS file is missing: {error.filename}.") from None
        except ssl.SSLError:
            from .certificates import key_problem  # cryptography: only once loading failed

            why = key_problem(settings.client_cert, settings.client_key, settings.client_key_password)
            raise ClientCertificateProblem(f"The client certificate could not be loaded: {why}.") from None
    return context


# Below this many characters of text a body is encoded on the loop: a worker thread's round trip (its result
# comes back through the loop's queue, behind whatever the window does meanwhile) cost a turn more than the
# json.dumps of a short conversation (tests/perf/bench_functions). The count stops once past the limit.
INLINE_ENCODE_CHARS = 64_000


def _text_over(value: Any, limit: int) -> bool:
    """Whether the strings in `value` (a JSON-ready body) hold more than `limit` characters."""
    stack, total = [value], 0
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
            if total > limit:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


async def _encoded_body(body: Any) -> bytes:
    """The body as httpx would encode it; a long one on a worker thread: a long conversation sends megabytes
    of history (300,000 tokens: 1.5 MB, ~8 ms of json.dumps), which the window's loop need not wait for."""
    encode = partial(json.dumps, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    if not _text_over(body, INLINE_ENCODE_CHARS):
        return encode(body).encode()
    text = await asyncio.to_thread(encode, body)
    return text.encode()


def _trace_sent(on_sent: Callable[[], None]) -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """An httpcore `trace` extension that calls `on_sent` when a request's body has been written (HTTP/1.1
    and HTTP/2 alike, through a proxy too)."""

    async def trace(event: str, _info: dict[str, Any]) -> None:
        if event.endswith("send_request_body.complete"):
            on_sent()

    return trace


def _unanswered(error: httpx.HTTPError) -> bool:
    """The connection failed after it was open and before any byte of the answer: typically an idle
    keep-alive connection the server closed just as it was reused."""
    return isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError)


def _page_kind(response: httpx.Response, content: bytes) -> str:
    """What a body that is not the API's JSON looks like, for an error message."""
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or content.lstrip()[:1] == b"<":
        if response.status_code == 404:
            return "a web page, not the API: check that the base URL ends in /v1"
        return "a web page, not the API: likely a proxy or gateway in between"
    if not content.strip():
        return "with an empty body"
    return "with a body that is not the API's JSON"


def _json_or_none(content: bytes) -> Any:
    try:
        return json.loads(content) if content else None
    except ValueError:
        return None


def _not_a_page(response: httpx.Response, content: bytes) -> bytes:
    """A successful answer's body, unless it is a web page (InvalidResponse). Only called for status < 400."""
    content_type = response.headers.get("content-type", "")
    if "html" in content_type or content.lstrip()[:1] == b"<":
        raise InvalidResponse(
            f"{response.request.url} answered a web page, not the API: check that the base URL ends in /v1."
        )
    return content


def _decode(response: httpx.Response, content: bytes) -> Any:
    """A successful answer's JSON; anything else is InvalidResponse. Only called for status < 400."""
    _not_a_page(response, content)
    try:
        return json.loads(content) if content else None
    except ValueError:
        raise InvalidResponse(f"{response.request.url} answered something that is not JSON.") from None


def _error_for(response: httpx.Response, content: bytes, route: Route) -> ApiError:
    """Status first, then body: an HTML or text page maps to the typed error of its status, or, through a
    proxy, to the proxy's own answer (a 407, a 403 of its rules), which is never the service's."""
    body = _json_or_none(content)
    api_error = isinstance(body, dict) and isinstance(body.get("error"), dict)
    proxied = status_through_proxy(response.status_code, api_error, str(response.request.url), route)
    if proxied is not None:
        return proxied
    what = "" if api_error else _page_kind(response, content)
    return status_error(response.status_code, body, dict(response.headers), what)


async def _read_closing(response: httpx.Response, url: str, route: Route) -> bytes:
    """The whole body of an answer, the response closed after; a failure while reading is a typed error."""
    try:
        return await response.aread()
    except httpx.HTTPError as error:
        raise await connection_error(error, url, route) from None
    finally:
        await response.aclose()


# Failures that the same request meets again however often it is sent.
FINAL_FAILURES = (TlsFailed, ProxyAuthRequired, ProxyRefused)


class Transport:
    def __init__(self, settings: ConnectionSettings, client: httpx.AsyncClient | None = None) -> None:
        self.settings = settings
        self.base_url = validate_base_url(settings.base_url)
        if settings.proxy:
            try:
                parse_proxy_url(settings.proxy)
            except BadProxyUrl as error:
                raise ApiError(f"The proxy URL cannot be used: {error}") from None
        try:
            self._client = client or httpx.AsyncClient(
                timeout=httpx.Timeout(
                    defaults.READ_TIMEOUT,
                    connect=defaults.CONNECT_TIMEOUT,
                    write=defaults.WRITE_TIMEOUT,
                    pool=defaults.POOL_TIMEOUT,
                ),
                limits=httpx.Limits(keepalive_expiry=defaults.KEEPALIVE_EXPIRY),
                verify=ssl_context(settings),
                proxy=settings.proxy or None,
                trust_env=settings.trust_env and not settings.proxy,
                headers={"user-agent": defaults.USER_AGENT},
            )
        except (ValueError, ImportError) as error:  # a proxy from the environment httpx cannot use
            raise ApiError(f"The proxy cannot be used: {error}.") from None
        self._routes: dict[str, Route] = {}

    def route(self, url: str) -> Route:
        """The proxy and TLS files a request to `url` goes through (the environment's proxy per host)."""
        host = urlsplit(url).netloc
        if host not in self._routes:
            settings = self.settings
            self._routes[host] = route_for(
                url, settings.proxy, settings.trust_env, settings.client_cert is not None, settings.ca_bundle
            )
        return self._routes[host]

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

    @staticmethod
    def _status_retry_delay(attempt: int, retries: int, status: int, failure: ApiError) -> float | None:
        """The wait before trying a failed status again, or None when the failure is final."""
        delay = Transport._retry_delay(attempt, failure)
        if isinstance(failure, FINAL_FAILURES):
            return None
        if attempt < retries and status in defaults.RETRYABLE_STATUSES and delay is not None:
            return delay
        return None

    @staticmethod
    def _retry_delay(attempt: int, error: ApiError) -> float | None:
        """Seconds to wait before the next attempt, or None when this error is not to be waited out here:
        a long Retry-After goes back to the caller, who shows it to the person."""
        waited = retry_after(error.headers) if isinstance(error, StatusError) else None
        if waited is not None:
            return waited if waited <= defaults.RETRY_AFTER_AUTO else None
        return min(defaults.BACKOFF_MAX, defaults.BACKOFF_BASE * 2.0**attempt) * (0.5 + random.random() / 2)

    async def _resend(self, method: str, check: ResendCheck | None, failure: ApiError, url: str) -> None:
        """Once per call: may a write that got no answer go again? Raises UnansweredWrite if not."""
        if method in SAFE_METHODS:
            return
        try:
            if check is not None and await check():
                return
        except ApiError as error:
            raise UnansweredWrite(
                f"The connection to {url} dropped before the server answered ({failure}), and checking "
                f"whether the change was made failed too: {error} Refresh to see the current state."
            ) from None
        raise UnansweredWrite(
            f"The connection to {url} dropped before the server answered ({failure}): the change may or "
            "may not have been made. Refresh to see the current state."
        )

    async def request(
        self,
        method: str,
        path: str,
        *,
        key: KeyKind = "api",
        json_body: Any = None,
        params: dict[str, str] | None = None,
        retries: int | None = None,
        deadline: float | None = None,
        resend_unanswered: ResendCheck | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[Any, httpx.Headers]:
        """Send one request, retrying 408/429/5xx and connection failures with backoff, within a deadline.

        A request whose connection drops before any byte of the answer is sent again once: always for GET,
        for a write only when `resend_unanswered` says it is safe (else UnansweredWrite)."""
        content, response = await self.request_bytes(
            method,
            path,
            key=key,
            json_body=json_body,
            params=params,
            retries=retries,
            deadline=deadline,
            resend_unanswered=resend_unanswered,
            headers=headers,
        )
        return _decode(response, content), response.headers

    async def request_bytes(
        self,
        method: str,
        path: str,
        *,
        key: KeyKind = "api",
        json_body: Any = None,
        params: dict[str, str] | None = None,
        retries: int | None = None,
        deadline: float | None = None,
        resend_unanswered: ResendCheck | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[bytes, httpx.Response]:
        """`request`, the answer's body left as the bytes that came (a web page is InvalidResponse already),
        with the closed response (its URL, its headers): for a resource that parses a long answer from its
        bytes, off the loop's thread (Allowlists)."""
        deadline = self.settings.request_deadline if deadline is None else deadline
        url = self.url(path)
        sent_headers = {**self.headers(key), **(headers or {})}

        def build() -> httpx.Request:
            return self._client.build_request(
                method, url, json=json_body, params=params, headers=sent_headers
            )

        try:
            async with asyncio.timeout(deadline):
                response = await self._send_retrying(build, url, retries, resend_unanswered)
                content = await _read_closing(response, url, self.route(url))
        except TimeoutError:
            raise TimedOut(f"{url} gave no answer within {deadline:g} s.") from None
        return _not_a_page(response, content), response

    async def open_stream(
        self, path: str, body: Any, *, key: KeyKind = "api", on_sent: Callable[[], None] | None = None
    ) -> httpx.Response:
        """POST and return the open streaming response once it answered below 400; retried only before that.
        The caller closes it (ResponseStream does, in `finally`). `on_sent` is called once the request's body
        is written, while the server works on it (each time, if it is sent again).

        The wait for the answer's head has its own deadline, `first_byte_deadline`, longer than a request's:
        a proxy that buffers sends the head only once the whole answer is there. Once streaming, the read
        timeout watches for a stall; no deadline cuts an answer that keeps coming."""
        url = self.url(path)
        deadline = self.settings.first_byte_deadline
        payload = await _encoded_body(body)
        headers = {**self.headers(key), "accept": "text/event-stream", "content-type": "application/json"}
        timeout = httpx.Timeout(
            max(defaults.READ_TIMEOUT, deadline),
            connect=defaults.CONNECT_TIMEOUT,
            write=defaults.WRITE_TIMEOUT,
            pool=defaults.POOL_TIMEOUT,
        )

        extensions = {"trace": _trace_sent(on_sent)} if on_sent is not None else None

        def build() -> httpx.Request:
            return self._client.build_request(
                "POST", url, content=payload, headers=headers, timeout=timeout, extensions=extensions
            )

        try:
            async with asyncio.timeout(deadline):
                # Nothing of the answer was read when a reused connection drops unanswered: creating the
                # response again is what the official client does, so a stream is always sent again once.
                return await self._send_retrying(build, url, None, always_resend)
        except TimeoutError:
            through = self.route(url).proxy_name
            raise TimedOut(
                f"{url} gave no answer within {deadline:g} s"
                + (
                    f" through the proxy {through}, which may hold a streamed answer back until it is whole: "
                    "a longer “Wait for first byte” in File > Profiles… lets it arrive."
                    if through
                    else "."
                )
            ) from None

    async def _send_retrying(
        self,
        build: Callable[[], httpx.Request],
        url: str,
        retries: int | None,
        resend_unanswered: ResendCheck | None,
    ) -> httpx.Response:
        """The one retry policy of requests and streams; returns the open response of a status below 400.

        - a connection that drops before any byte of the answer: sent again once (a write only when
          `resend_unanswered` says so, else UnansweredWrite);
        - a failed connect (refused, or no connection within the connect timeout): nothing was sent, so it
          is retried with backoff whatever the method; any other connection failure only for GET/HEAD/
          OPTIONS: a read timeout on a POST may have been processed;
        - 408/429/5xx: retried with backoff, or after a short Retry-After (a long one goes to the caller);
        - a TLS failure, or a proxy's 407 or refusal, is never retried: the next attempt fails the same way."""
        retries = self.settings.max_retries if retries is None else retries
        attempt, resent = 0, False
        while True:
            request = build()
            try:
                response = await self._client.send(request, stream=True)
            except httpx.HTTPError as error:
                failure = await connection_error(error, url, self.route(url), resent)
                if _unanswered(error) and not resent and not isinstance(failure, FINAL_FAILURES):
                    resent = True
                    await self._resend(request.method, resend_unanswered, failure, url)
                    continue
                safe = request.method in SAFE_METHODS or isinstance(
                    error, httpx.ConnectError | httpx.ConnectTimeout
                )
                delay = self._retry_delay(attempt, failure)
                if (
                    attempt < retries
                    and safe
                    and not isinstance(failure, FINAL_FAILURES)
                    and delay is not None
                ):
                    attempt += 1
                    await asyncio.sleep(delay)
                    continue
                raise failure from None
            if response.status_code < 400:
                return response
            content = await _read_closing(response, url, self.route(url))
            status_failure = _error_for(response, content, self.route(url))
            delay = self._status_retry_delay(attempt, retries, response.status_code, status_failure)
            if delay is None:
                raise status_failure
            attempt += 1
            await asyncio.sleep(delay)
