"""The gateway in front of every /v1 request, in the service's order (docs/contract.md).

1. source IP (X-Forwarded-For only from a trusted proxy), 2. scope from the path or the key's clear
owner part, without validating the key, 3. the client certificate, where one is active for that
organization or project (gateway/client_certificates.py), then the organization AND project allowlists,
decided by netrules' policy (the rule the console asks too), a 403 that says nothing about the key nor
which list refused, 4. key validation (and its permissions), a project a hard budget stopped (429
insufficient_quota), rate limiting, the body size limit, the project's own rate limits (once the body
names the model: gateway/project_limits.py), then the handler.
A request counts on the entries that admitted it (hit_count) only once the key and the rate limits let it
through, so refused keys keep no unused entry looking used.
Written as pure ASGI (not BaseHTTPMiddleware) so streamed answers pass through unbuffered.
"""

from __future__ import annotations

import math
import re
from collections import deque
from functools import lru_cache
from typing import NamedTuple

from starlette.types import ASGIApp, Receive, Scope, Send

from app.netrules import Address
from app.sandbox.config import SandboxConfig
from app.sandbox.errors import error_bytes
from app.sandbox.gateway.asgi_io import bounded_body, respond, with_headers
from app.sandbox.gateway.client_certificates import certificate_refusal
from app.sandbox.gateway.context import RequestContext
from app.sandbox.gateway.limits import RateLimiter
from app.sandbox.gateway.metering import CALLER
from app.sandbox.gateway.permissions import refusal as permission_refusal
from app.sandbox.gateway.project_limits import NO_RETRY, QUOTA_REFUSAL, hold, stopped
from app.sandbox.gateway.recording import count_admitted, record_refusal
from app.sandbox.gateway.source import bearer_token, source_of
from app.sandbox.gateway.upgrade import refusals_as_handshake
from app.sandbox.state import SandboxState
from app.sandbox.store.aggregates import Store
from app.sandbox.store.allowlist_record import AllowlistRecord

_ADMIN_PATH = re.compile(r"^/v1/organizations/([^/]+)(?:/|$)")
_KEY_OWNER = re.compile(r"^sk-(admin-)?([A-Za-z0-9]+_[A-Za-z0-9]+)-")


class Head(NamedTuple):
    """What the gateway reads from a request's head, in one pass over its headers."""

    source_ip: Address | None
    token: str | None  # the bearer token, None when there is none
    framed: bool  # has Content-Length or Transfer-Encoding: a body to read (and replay)
    oversized: bool  # Content-Length says more than the body limit
    shown: bytes  # the source as X-Request-Source-IP says it ("unknown" for none)
    seen: str  # the source as a refusal says it


def _head(source_ip: Address | None, token: str | None, framed: bool, oversized: bool) -> Head:
    """A Head with the source already spelled: done once per remembered head, not on every request (spelling
    an address hashes it in Python for the cache and builds its text: ~1.5 µs)."""
    shown = str(source_ip) if source_ip is not None else None
    return Head(
        source_ip,
        token,
        framed,
        oversized,
        shown.encode() if shown is not None else b"unknown",
        shown if shown is not None else "an unknown address",
    )


# A request's addresses come from few clients: parsing one (checks, then an ipaddress object) costs ~15 µs,
# so it is remembered (bounded: a flood of new addresses evicts).
@lru_cache(maxsize=1024)
def _refusal(seen: str) -> bytes:
    message = (
        f"Requests from {seen} are not allowed by the IP allowlist. "
        "An organization admin can add this address in Settings > Security."
    )
    return error_bytes(403, message, "ip_not_allowed")


# x-ratelimit-reset-requests for each whole number of seconds a one-minute window can have left.
_RESET_HEADERS = tuple(f"{seconds}s".encode() for seconds in range(61))


class Gateway:
    state: SandboxState  # the app's engines and stores, set by create_app (tests and the server look inside)

    def __init__(self, app: ASGIApp, store: Store, config: SandboxConfig) -> None:
        self.app = app
        self.store = store
        self.config = config
        self.limiter = RateLimiter(config.rate_limit_per_minute)
        self._limit = str(config.rate_limit_per_minute).encode()
        self.clock = config.clock
        trusted = config.trusted_proxies
        limit = config.max_body_bytes

        # Requests come from few clients, each sending the same head again and again: what the gateway
        # reads from one (peer, headers) is remembered. The key is hashed and compared in C; reading the
        # headers in Python, parsing the addresses and the `in network` checks cost far more (~20 µs).
        # Bounded: a flood of new heads evicts, and 1,024 heads of at most 16 KB each (the head limit) hold
        # 16 MB at worst. Holds keys in memory only, as the key caches below do.
        @lru_cache(maxsize=1024)
        def head(peer_text: str | None, headers: tuple[tuple[bytes, bytes], ...]) -> Head:
            forwarded = tuple(value for name, value in headers if name == b"x-forwarded-for")
            length = next((value for name, value in headers if name == b"content-length"), None)
            framed = length is not None or any(name == b"transfer-encoding" for name, _ in headers)
            oversized = length is not None and length.isdigit() and int(length) > limit
            return _head(source_of(peer_text, forwarded, trusted), bearer_token(headers), framed, oversized)

        self._head = head
        self._key_owners = lru_cache(maxsize=1024)(self._key_owner)
        # The last API requests that reached the sandbox, (method, path) oldest first: what a client really
        # sent, for a person or a test counting round trips. Bounded; appending to a deque is thread-safe.
        self.seen: deque[tuple[str, str]] = deque(maxlen=1000)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        if scope["type"] not in ("http", "websocket") or not (path.startswith("/v1/") or path == "/v1"):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # an upgrade is judged as a request is (upgrade.py)
            send = refusals_as_handshake(scope, receive, send)
        self.seen.append((scope.get("method", "GET"), path))
        client = scope.get("client")
        source_ip, token, framed, oversized, shown, seen = self._head(
            client[0] if client else None, tuple(scope["headers"])
        )
        if self.store.certificates.any_active:  # mutual TLS, with the allowlist before the key
            refused = certificate_refusal(self.store.certificates, scope, *self._owners(path, token))
            if refused is not None:  # connection: close, so a client that has a certificate reconnects
                self.store.usage.refused(*self._owners(path, token), "client_certificate", int(self.clock()))
                await respond(send, 403, refused, [(b"connection", b"close")])
                return
        organization, project = self._applicable_allowlists(path, token)
        if organization is not None and not organization.enabled:
            organization = None  # a list that is off admits everyone
        if project is not None and not project.enabled:
            project = None
        extra: list[tuple[bytes, bytes]] = []
        matched: tuple[tuple[AllowlistRecord, int], ...] = ()
        now = int(self.clock())  # whole seconds: an entry expires at its second
        if organization is not None or project is not None:
            extra.append((b"x-request-source-ip", shown))
            admitted = self._admitted(source_ip, organization, project, now)
            if admitted is None:
                owners = self._owners(path, token)
                record_refusal(self.store.traffic, owners, source_ip, seen, path, organization, project, now)
                self.store.usage.refused(*owners, "ip_not_allowed", now)
                # One answer whichever list refused (the console reads the lists to tell), and whatever the key.
                await respond(send, 403, _refusal(seen), extra)
                return
            matched = admitted

        key = self.store.keys.lookup(token) if token else None
        if key is None:
            message = (
                "No API key was given: send it as 'Authorization: Bearer <key>'."
                if token is None
                else "The API key is not valid. Check the key, or create a new one in the dashboard."
            )
            self.store.usage.refused(*self._owners(path, token), "invalid_api_key", now)
            await respond(send, 401, error_bytes(401, message, "invalid_api_key"), extra)
            return
        self.store.keys.used(key, int(self.clock()))  # counted in memory, written in batches
        if key.permissions != "all":
            # An upgrade opens a socket of response.create messages: a write, as a POST is.
            refused = permission_refusal(key.permissions, scope.get("method", "POST"), path)
            if refused is not None:
                self.store.usage.refused(key.org_id, key.project_id, "insufficient_permissions", now)
                await respond(send, 403, refused, extra)
                return
        if key.project_id is not None and stopped(self.store.budgets, key):
            self.store.usage.refused(key.org_id, key.project_id, "insufficient_quota", now)
            await respond(send, 429, QUOTA_REFUSAL, [*extra, *NO_RETRY])
            return

        allowed, remaining, reset = self.limiter.take(token or "")
        limit_headers = [
            (b"x-ratelimit-limit-requests", self._limit),
            (b"x-ratelimit-remaining-requests", str(remaining).encode()),
            (b"x-ratelimit-reset-requests", _RESET_HEADERS[math.ceil(reset)]),
        ]
        if not allowed:
            retry = str(max(1, math.ceil(reset))).encode()
            message = f"Rate limit of {self.limiter.per_minute} requests per minute reached; retry in {retry.decode()} s."
            self.store.usage.refused(key.org_id, key.project_id, "rate_limit_exceeded", now)
            await respond(
                send,
                429,
                error_bytes(429, message, "rate_limit_exceeded"),
                [*extra, *limit_headers, (b"retry-after", retry)],
            )
            return
        # A project with limits of its own is held to them once its body names the model (project_limits.py).
        ruled = key.project_id is not None and key.project_id in self.store.rate_limits.by_project
        if not ruled:
            count_admitted(self.store.traffic, matched, seen, now)

        if oversized:
            message = f"The request body is larger than the limit of {self.config.max_body_bytes:,} bytes."
            await respond(send, 413, error_bytes(413, message, "request_too_large"), [*extra, *limit_headers])
            return
        body = b""
        # HTTP/1.1 without Content-Length or Transfer-Encoding has no body, nor has an upgrade: nothing to replay
        if framed and scope["type"] == "http":
            read = await bounded_body(receive, send, [*extra, *limit_headers], self.config)
            if read is None:
                return
            receive, body = read
        if ruled:
            limit_headers, refused_limit = hold(self.store, key, path, body, remaining, limit_headers, now)
            if refused_limit is not None:
                await respond(send, 429, refused_limit, [*extra, *limit_headers])
                return
            count_admitted(self.store.traffic, matched, seen, now)
        if project is None:
            active: tuple[AllowlistRecord, ...] = () if organization is None else (organization,)
        else:
            active = (project,) if organization is None else (organization, project)
        scope.setdefault("state", {})["gateway"] = RequestContext(source_ip, key, active)
        CALLER.set(key)  # for the usage counts (gateway/metering.py): each request runs in a task of its own
        await self.app(scope, receive, with_headers(send, extra, limit_headers))

    def _admitted(
        self,
        source_ip: Address | None,
        organization: AllowlistRecord | None,
        project: AllowlistRecord | None,
        now: int,
    ) -> tuple[tuple[AllowlistRecord, int], ...] | None:
        """The (list, entry serial) of each list in force that admits the address, or None when one refuses;
        counted by the caller once the request is let through."""
        if source_ip is None:
            return None  # an unknown address fails closed wherever a list is on
        if project is None or organization is None:  # the usual case: one lookup
            single = organization if project is None else project
            assert single is not None
            serial = single.match(source_ip, now)
            return None if serial < 0 else ((single, serial),)
        # Both lists must admit.
        in_organization = organization.match(source_ip, now)
        in_project = project.match(source_ip, now)
        if in_organization < 0 or in_project < 0:
            return None
        return (organization, in_organization), (project, in_project)

    def _applicable_allowlists(
        self, path: str, token: str | None
    ) -> tuple[AllowlistRecord | None, AllowlistRecord | None]:
        """The organization's and the project's list for this request (None where it names none), chosen
        without validating the key; a list that is off admits everyone.

        A key or path naming no known organization or project selects no list (as the service does), so from a
        blocked address it gets 401 where a known one gets 403. Why not 403 there too: holding such requests
        to every enabled list of every tenant would let one organization's list refuse the mistyped keys of
        all the others, with a message about their address instead of their key. What the difference tells
        is only that an id one already holds (in clear, from a key) still exists; the ids are random
        (96 bits), so none can be found by asking, and a valid and an invalid secret for a known id get
        byte-identical 403s.
        """
        org_id, project_id = self._owners(path, token)
        if not org_id:
            return None, None
        return self.store.allowlists.for_caller(org_id, project_id)

    def _owners(self, path: str, token: str | None) -> tuple[str | None, str | None]:
        """(organization, project) that the path or the key's clear owner part names."""
        admin_path = _ADMIN_PATH.match(path) if path.startswith("/v1/organizations/") else None
        if admin_path:
            return admin_path.group(1), None
        return self._key_owners(token) if token else (None, None)

    def _key_owner(self, token: str) -> tuple[str | None, str | None]:
        """(organization, project) a key names in clear; remembered per key (projects never move, and a
        key is made only for a project that exists)."""
        owner = _KEY_OWNER.match(token)
        if owner is None:
            return None, None
        if owner.group(1):
            return owner.group(2), None
        org_id = self.store.organizations.project_org(owner.group(2))
        return (org_id, owner.group(2)) if org_id else (None, None)
