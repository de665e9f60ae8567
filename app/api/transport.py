"""Transport: base URL, auth, timeouts, retries, TLS and proxy, in one place. Resources only bind verbs.

One `httpx.AsyncClient` per profile, made once and closed with `aclose()`. The settings and their checks are
app/api/connection.py's, the bodies' encoding and decoding app/api/bodies.py's.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from app.common.proxy_url import BadProxyUrl, parse_proxy_url

from . import defaults
from .bodies import decoded, encoded_body, error_for, not_a_page, read_closing
from .connection import ConnectionSettings, ssl_context, validate_base_url
from .errors import (
    ApiError,
    ProxyAuthRequired,
    ProxyRefused,
    ProxySchemeWrong,
    StatusError,
    TimedOut,
    TlsFailed,
    UnansweredWrite,
    retry_after,
)
from .network_errors import Route, connection_error, route_for, tunnel_unanswered
from .progress import Phase, Progress

__all__ = ["ConnectionSettings", "KeyKind", "ResendCheck", "Transport", "always_resend", "ssl_context"]

KeyKind = Literal["api", "admin", "none"]
# Asked before a write whose connection dropped unanswered is sent again: True if resending is safe.
ResendCheck = Callable[[], Awaitable[bool]]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def always_resend() -> bool:
    """The ResendCheck of a write that is idempotent (PATCH enabled=…, DELETE by id)."""
    return True


def _unanswered(error: httpx.HTTPError) -> bool:
    """The connection failed after it was open and before any byte of the answer: typically an idle
    keep-alive connection the server closed just as it was reused."""
    return isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError)


# Failures that the same request meets again however often it is sent.
FINAL_FAILURES = (TlsFailed, ProxyAuthRequired, ProxyRefused, ProxySchemeWrong)


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
                url, settings.proxy, settings.trust_env, settings.client_cert, settings.ca_bundle
            )
        return self._routes[host]

    def proxy_name(self, path: str) -> str:
        """The proxy (host:port) requests to `path` go through; "" when they go direct."""
        return self.route(self.url(path)).proxy_name

    def _progress(self, url: str, on_sent: Callable[[], None] | None = None) -> Progress:
        return Progress(self.route(url).proxy is not None, on_sent)

    def _deadline_error(self, url: str, deadline: float, progress: Progress) -> ApiError:
        """No answer within the call's deadline: the proxy's, when it never answered the CONNECT."""
        if progress.phase is Phase.TUNNEL:
            return tunnel_unanswered(self.route(url), url, min(deadline, self.settings.request_deadline))
        return TimedOut(f"{url} gave no answer within {deadline:g} s.")

    async def aclose(self) -> None:
        await self._client.aclose()

    def headers(self, key: KeyKind) -> dict[str, str]:
        headers: dict[str, str] = {}
        secret = {"api": self.settings.api_key, "admin": self.settings.admin_key}.get(key)
        if secret:
            headers["authorization"] = f"Bearer {secret}"
        forwarded = (key == "api" and self.settings.played_ip) or self.settings.forwarded_for
        if forwarded:
            headers["x-forwarded-for"] = forwarded
        return headers

    def url(self, path: str) -> str:
        return path if path.startswith("http") else f"{self.base_url}{path}"

    def _status_retry_delay(self, attempt: int, retries: int, status: int, failure: ApiError) -> float | None:
        """The wait before trying a failed status again, or None when the failure is final."""
        delay = self._retry_delay(attempt, failure)
        if isinstance(failure, FINAL_FAILURES):
            return None
        if attempt < retries and status in defaults.RETRYABLE_STATUSES and delay is not None:
            return delay
        return None

    def _retry_delay(self, attempt: int, error: ApiError) -> float | None:
        """Seconds to wait before the next attempt, or None when this error is not to be waited out here:
        a long Retry-After goes back to the caller, who shows it to the person."""
        waited = retry_after(error.headers) if isinstance(error, StatusError) else None
        if waited is not None:
            return waited if waited <= defaults.RETRY_AFTER_AUTO else None
        backoff = min(defaults.BACKOFF_MAX, self.settings.backoff_base * 2.0**attempt)
        return backoff * (0.5 + random.random() / 2)

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
        return decoded(response, content), response.headers

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
        progress = self._progress(url)

        def build() -> httpx.Request:
            return self._client.build_request(
                method,
                url,
                json=json_body,
                params=params,
                headers=sent_headers,
                extensions={"trace": progress},
            )

        try:
            async with asyncio.timeout(deadline) as scope:
                progress.bound(scope, self.settings.request_deadline)
                response = await self._send_retrying(build, url, retries, resend_unanswered, progress)
                content = await read_closing(response, url, self.route(url))
        except TimeoutError:
            raise self._deadline_error(url, deadline, progress) from None
        return not_a_page(response, content), response

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
        payload = await encoded_body(body)
        headers = {**self.headers(key), "accept": "text/event-stream", "content-type": "application/json"}
        # Only the read timeout is the stream's own: it connects, writes and waits for the pool as the client's
        # requests do (a client given shorter timeouts gives up on a dead host as soon for both).
        base = self._client.timeout
        timeout = httpx.Timeout(
            max(defaults.READ_TIMEOUT, deadline), connect=base.connect, write=base.write, pool=base.pool
        )

        # The proxy's answer to CONNECT gets a request's deadline, not the first byte's.
        progress = self._progress(url, on_sent)

        def build() -> httpx.Request:
            return self._client.build_request(
                "POST", url, content=payload, headers=headers, timeout=timeout, extensions={"trace": progress}
            )

        try:
            async with asyncio.timeout(deadline) as scope:
                progress.bound(scope, self.settings.request_deadline)
                # Nothing of the answer was read when a reused connection drops unanswered: creating the
                # response again is what the official client does, so a stream is always sent again once.
                return await self._send_retrying(build, url, None, always_resend, progress)
        except TimeoutError:
            through = self.route(url).proxy_name
            if progress.phase is not Phase.SENT:
                raise self._deadline_error(url, deadline, progress) from None
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
        progress: Progress,
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
            progress.restart()
            try:
                response = await self._client.send(request, stream=True)
            except httpx.HTTPError as error:
                failure = await connection_error(error, url, self.route(url), resent, progress.phase)
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
            content = await read_closing(response, url, self.route(url))
            status_failure = error_for(response, content, self.route(url))
            delay = self._status_retry_delay(attempt, retries, response.status_code, status_failure)
            if delay is None:
                raise status_failure
            attempt += 1
            await asyncio.sleep(delay)
