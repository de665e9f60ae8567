"""What went wrong between the console and the service, said of the part that failed: the proxy (its
credentials, its rules, its being down), a certificate (whose, issued by whom, what to add), or mutual TLS.

httpx reports a proxy's refusal of a tunnel as a bare "407 Proxy Authentication Required" or "403 Forbidden",
a proxy that is down as "All connection attempts failed", and a server that wants a client certificate as
"Server disconnected without sending a response": read alone they blame the server.
"""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from app.common.proxy_url import BadProxyUrl, parse_proxy_url

from .certificates import peer_certificate
from .errors import (
    ApiError,
    ClientCertificateProblem,
    ConnectionFailed,
    InvalidResponse,
    ProxyAuthRequired,
    ProxyFailed,
    ProxyRefused,
    ProxyUnreachable,
    TimedOut,
    TlsFailed,
)

PROFILES = "File > Profiles… (Ctrl+,)"


@dataclass(frozen=True)
class Route:
    """How requests reach the service: through which proxy (None: direct), and with which TLS files."""

    proxy: str | None  # the URL httpx uses, credentials included: for the certificate probe only
    client_cert: bool
    ca_bundle: Path | None

    @property
    def proxy_name(self) -> str:
        """The proxy as a message names it: host:port, never its credentials."""
        if not self.proxy:
            return ""
        try:
            return parse_proxy_url(self.proxy).address
        except BadProxyUrl:
            return "(unreadable URL)"

    @property
    def proxy_has_credentials(self) -> bool:
        return bool(self.proxy and urlsplit(self.proxy).username)


def route_for(
    url: str, proxy: str | None, trust_env: bool, client_cert: bool, ca_bundle: Path | None
) -> Route:
    """The proxy in effect for `url`: the profile's, else HTTPS_PROXY/HTTP_PROXY/ALL_PROXY from the
    environment unless NO_PROXY covers the host (the rules httpx follows)."""
    if not proxy and trust_env:
        parts = urlsplit(url)
        found = urllib.request.getproxies_environment()
        # proxy_bypass_environment: NO_PROXY as urllib reads it (public, though typeshed omits it).
        bypass = getattr(urllib.request, "proxy_bypass_environment")  # noqa: B009
        if not bypass(parts.hostname or "", found):
            proxy = found.get(parts.scheme) or found.get("all") or None
    return Route(proxy or None, client_cert, ca_bundle)


def describe(error: BaseException) -> str:
    """A reason that is never empty: httpx errors often carry no text (a bare reset)."""
    text = str(error).strip()
    return text or {
        "ReadError": "the server closed the connection",
        "RemoteProtocolError": "the server broke off the answer",
        "WriteError": "the request could not be sent",
    }.get(type(error).__name__, type(error).__name__)


def _target(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"


def proxy_auth_required(route: Route, how: str) -> ProxyAuthRequired:
    name = route.proxy_name or "in between"
    if route.proxy_has_credentials:
        advice = f"the user name and password the profile gives were refused: check them in {PROFILES}"
    else:
        advice = (
            f"put the user name in the Proxy URL (http://user@{name}) and the password in Proxy password, "
            f"in {PROFILES}"
        )
    return ProxyAuthRequired(f"The proxy {name} asks for credentials ({how}): {advice}.")


def proxy_refused(route: Route, url: str, how: str) -> ProxyRefused:
    return ProxyRefused(
        f"The proxy {route.proxy_name} refused to connect to {_target(url)} ({how}): its own rules do not "
        "allow this destination. This is the proxy's refusal, not the service's IP allowlist: ask your "
        "network's administrators to allow the service's address."
    )


async def connection_error(error: httpx.HTTPError, url: str, route: Route, resent: bool = True) -> ApiError:
    """The typed error, in words, for a request that failed before any answer came. A server that closes
    a connection unanswered is taken for one that wants a client certificate only once the request was
    `resent` on a new connection: the first time it is most often an idle keep-alive connection closed."""
    text = describe(error).rstrip(".")
    if isinstance(error, httpx.ProxyError):
        return _proxy_error(text, url, route)
    if isinstance(error, httpx.TimeoutException):
        if route.proxy and isinstance(error, httpx.ConnectTimeout):
            return ProxyUnreachable(f"The proxy {route.proxy_name} did not accept a connection in time.")
        return TimedOut(f"{url} did not answer in time ({type(error).__name__}).")
    if isinstance(error, httpx.DecodingError):
        return InvalidResponse(f"{url} answered a body that could not be decoded: {text}.")
    if "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text:
        return await _untrusted(text, url, route)
    if "certificate required" in text or (
        route.proxy is None
        and not route.client_cert
        and url.startswith("https://")
        and "without sending a response" in text
        and resent
    ):
        return ClientCertificateProblem(
            f"{_target(url)} closed the connection during the TLS handshake without answering: it asks for "
            f"a client certificate (mutual TLS), and the profile sends none. Add the client certificate and "
            f"its key in {PROFILES}."
        )
    if any(word in text for word in ("SSL", "TLS", "certificate", "tlsv1 alert", "tlsv13 alert")):
        advice = "Check the client certificate." if route.client_cert else "Check the CA bundle."
        return TlsFailed(f"The TLS handshake with {_target(url)} failed: {text}. {advice}")
    if route.proxy and isinstance(error, httpx.ConnectError):
        return ProxyUnreachable(
            f"Cannot reach the proxy {route.proxy_name}: {text}. Is the proxy running, and is the Proxy URL "
            f"right ({PROFILES}, or $HTTPS_PROXY)?"
        )
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ConnectionFailed(f"The connection to {url} was lost: {text}.")
    return ConnectionFailed(f"Cannot reach {url}: {text}. Is the server running?")


def _proxy_error(text: str, url: str, route: Route) -> ProxyFailed:
    """httpx.ProxyError: the proxy answered the CONNECT with a status other than 200."""
    if text.startswith("407"):
        return proxy_auth_required(route, text)
    if text.startswith("403"):
        return proxy_refused(route, url, text)
    return ProxyFailed(f"The proxy {route.proxy_name} could not connect to {_target(url)}: {text}.")


async def _untrusted(text: str, url: str, route: Route) -> TlsFailed:
    """A certificate that failed verification: whose it is, who issued it, and what to add."""
    reason = text.split("certificate verify failed:")[-1].split("(_ssl")[0].strip() or text
    peer = await peer_certificate(url, route.proxy)
    named = f" It is {peer}." if peer else ""
    bundle = " instead of the one set now" if route.ca_bundle else ""
    if route.proxy:
        return TlsFailed(
            f"The certificate presented for {_target(url)} through the proxy {route.proxy_name} is not trusted "
            f"({reason}).{named} A proxy that inspects TLS re-signs every site with its own CA, so this is "
            f"likely the proxy's certificate: add your proxy's CA certificate (the issuer named here) as the "
            f"profile's CA bundle{bundle}, in {PROFILES}."
        )
    return TlsFailed(
        f"The server's certificate for {_target(url)} is not trusted ({reason}).{named} Add the CA that "
        f"issued it as the profile's CA bundle{bundle}, in {PROFILES}."
    )


def status_through_proxy(status: int, api_body: bool, url: str, route: Route) -> ApiError | None:
    """A status whose body is not the API's, met through a proxy: the proxy's own answer. None otherwise."""
    if not route.proxy or api_body:
        return None
    if status == 407:
        return proxy_auth_required(route, "407 Proxy Authentication Required")
    if status == 403:
        return proxy_refused(route, url, "403 Forbidden, a page of the proxy's")
    if status == 502 and route.client_cert and url.startswith("https://"):
        return ClientCertificateProblem(
            f"The proxy {route.proxy_name} answered 502: it intercepts TLS, so it makes its own connection to "
            f"{_target(url)}, which asks for the client certificate only the console holds. Mutual TLS cannot "
            "work through an intercepting proxy: ask for the service's address to be exempted from TLS "
            "inspection, or reach it without the proxy (NO_PROXY)."
        )
    return None
