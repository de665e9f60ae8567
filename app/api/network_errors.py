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

from .errors import (
    ApiError,
    ClientCertificateProblem,
    ConnectionFailed,
    InvalidResponse,
    ProxyAuthRequired,
    ProxyFailed,
    ProxyRefused,
    ProxySchemeWrong,
    ProxyUnreachable,
    TimedOut,
    TlsFailed,
)
from .progress import Phase
from .tls_errors import PROFILES, client_certificate_refused, page_text, refused_by_proxy, untrusted


@dataclass(frozen=True)
class Route:
    """How requests reach the service: through which proxy (None: direct), and with which TLS files."""

    proxy: str | None  # the URL httpx uses, credentials included: for the certificate probe only
    client_cert: Path | None
    ca_bundle: Path | None
    proxy_source: str = ""  # "" for the profile's proxy; the variable it came from ("$HTTPS_PROXY")

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

    @property
    def proxy_setting(self) -> str:
        """Where the Proxy URL is set, for a message that says to change it."""
        return self.proxy_source or f"the Proxy URL in {PROFILES}"


def route_for(
    url: str, proxy: str | None, trust_env: bool, client_cert: Path | None, ca_bundle: Path | None
) -> Route:
    """The proxy in effect for `url`: the profile's, else HTTPS_PROXY/HTTP_PROXY/ALL_PROXY from the
    environment unless NO_PROXY covers the host (the rules httpx follows)."""
    source = ""
    if not proxy and trust_env:
        parts = urlsplit(url)
        found = urllib.request.getproxies_environment()
        # proxy_bypass_environment: NO_PROXY as urllib reads it (public, though typeshed omits it).
        bypass = getattr(urllib.request, "proxy_bypass_environment")  # noqa: B009
        if not bypass(parts.hostname or "", found):
            scheme = parts.scheme if found.get(parts.scheme) else "all"
            proxy = found.get(scheme) or None
            source = f"${scheme.upper()}_PROXY" if proxy else ""
    return Route(proxy or None, client_cert, ca_bundle, source)


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
    source = route.proxy_source
    if route.proxy_has_credentials and source:
        advice = f"the user name and password in {source} were refused: check them there"
    elif route.proxy_has_credentials:
        advice = f"the user name and password the profile gives were refused: check them in {PROFILES}"
    elif source:
        advice = (
            f"the proxy comes from {source}, which carries none: set the proxy in the profile instead "
            f"(user name in the Proxy URL, password in Proxy password, in {PROFILES})"
        )
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


async def connection_error(
    error: httpx.HTTPError, url: str, route: Route, resent: bool = True, phase: Phase | None = None
) -> ApiError:
    """The typed error, in words, for a request that failed before any answer came; `phase` says how far it
    got. A server that closes a fresh connection unanswered right after the TLS handshake is taken for one
    that refused the client certificate (or wanted one) only once the request was `resent` on a new
    connection: the first time it is most often an idle keep-alive connection closed."""
    text = describe(error).rstrip(".")
    if isinstance(error, httpx.ProxyError):
        return _proxy_error(text, url, route)
    if phase is Phase.TUNNEL and isinstance(error, httpx.TimeoutException | httpx.RemoteProtocolError):
        return tunnel_unanswered(route, url, None)
    if phase is Phase.PROXY_TLS and isinstance(error, httpx.ConnectError) and not _verify_failed(text):
        return ProxySchemeWrong(
            f"The proxy {route.proxy_name} does not answer in TLS ({text}): the Proxy URL says https://, but "
            "most proxies take plain http:// even for https:// sites, whose TLS then runs through the tunnel. "
            f"Write http://{route.proxy_name} in {route.proxy_setting}."
        )
    if isinstance(error, httpx.TimeoutException):
        if route.proxy and isinstance(error, httpx.ConnectTimeout):
            return ProxyUnreachable(f"The proxy {route.proxy_name} did not accept a connection in time.")
        return TimedOut(f"{url} did not answer in time ({type(error).__name__}).")
    if isinstance(error, httpx.DecodingError):
        return InvalidResponse(f"{url} answered a body that could not be decoded: {text}.")
    if _verify_failed(text):
        if phase is Phase.PROXY_TLS:
            return TlsFailed(
                f"The certificate of the proxy {route.proxy_name} itself (https://) is not trusted ({text}): "
                f"add the CA that issued it as the profile's CA bundle, in {PROFILES}."
            )
        return await untrusted(text, url, route.proxy, route.proxy_name, route.ca_bundle)
    if "certificate required" in text or (
        url.startswith("https://")
        and "without sending a response" in text
        and resent
        and phase in (None, Phase.SENT, Phase.SENDING)
    ):
        return client_certificate_refused(url, route.client_cert)
    if any(word in text for word in ("SSL", "TLS", "certificate", "tlsv1 alert", "tlsv13 alert")):
        advice = "Check the client certificate." if route.client_cert else "Check the CA bundle."
        return TlsFailed(f"The TLS handshake with {_target(url)} failed: {text}. {advice}")
    if route.proxy and isinstance(error, httpx.ConnectError):
        return ProxyUnreachable(
            f"Cannot reach the proxy {route.proxy_name}: {text}. Is the proxy running, and is "
            f"{route.proxy_setting} right?"
        )
    if isinstance(error, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
        return ConnectionFailed(f"The connection to {url} was lost: {text}.")
    return ConnectionFailed(f"Cannot reach {url}: {text}. Is the server running?")


def _verify_failed(text: str) -> bool:
    return "CERTIFICATE_VERIFY_FAILED" in text or "certificate verify failed" in text


def tunnel_unanswered(route: Route, url: str, seconds: float | None) -> ProxyFailed:
    """The proxy took the connection and the CONNECT, and said nothing: neither the tunnel nor a refusal."""
    within = f" within {seconds:g} s" if seconds is not None else ""
    return ProxyFailed(
        f"The proxy {route.proxy_name} accepted the connection but did not answer the request to open a "
        f"tunnel to {_target(url)} (CONNECT){within}: the server was never reached. The proxy is stuck, or it "
        "drops tunnels to this destination without saying so: ask your network's administrators, or check "
        f"{route.proxy_setting}."
    )


def _proxy_error(text: str, url: str, route: Route) -> ProxyFailed:
    """httpx.ProxyError: the proxy answered the CONNECT with a status other than 200."""
    if text.startswith("407"):
        return proxy_auth_required(route, text)
    if text.startswith("403"):
        return proxy_refused(route, url, text)
    return ProxyFailed(f"The proxy {route.proxy_name} could not connect to {_target(url)}: {text}.")


def status_through_proxy(
    status: int, api_body: bool, url: str, route: Route, content: bytes = b""
) -> ApiError | None:
    """A status whose body is not the API's, met through a proxy: the proxy's own answer. None otherwise."""
    if not route.proxy or api_body:
        return None
    said = page_text(content) if status == 502 else ""
    if "certificate verify failed" in said.lower():
        return refused_by_proxy(said, url, route.proxy_name)
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
