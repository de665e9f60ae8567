"""Your public IP as echo services see it, IPv4 and IPv6 apart.

Each lookup binds its socket to one family's wildcard address (0.0.0.0 or ::), so an IPv4 lookup cannot
come back over IPv6 and the other way round. The services answer a bare address (ipify, icanhazip) or
JSON with an "ip" field; anything else is refused.
"""

from __future__ import annotations

import ipaddress
import json
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from .errors import ApiError
from .network_errors import route_for

TIMEOUT_S = 4.0


class EchoFailed(ApiError):
    """No echo service of a family answered with an address of that family."""


@dataclass(frozen=True)
class EchoAnswer:
    family: int  # 4 or 6
    address: str
    service: str  # the host that answered


def _address_from(body: str) -> str:
    text = body.strip()
    if text.startswith("{"):
        try:
            text = str(json.loads(text).get("ip", ""))
        except (ValueError, AttributeError):
            text = ""
    return text


def _plain(error: httpx.HTTPError, proxy: str | None) -> str:
    """What a person reads instead of an exception's class name ("ConnectError")."""
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {TIMEOUT_S:g} s"
    if "CERTIFICATE_VERIFY_FAILED" in str(error):
        through = " (through the proxy, which may re-sign TLS)" if proxy else ""
        return (
            f"its certificate is not trusted{through}: add the CA that issued it to the profile's CA bundle"
        )
    if isinstance(error, httpx.ProxyError):
        return f"the proxy refused ({error})"
    if isinstance(error, httpx.ConnectError) and proxy:
        return "could not connect through the proxy (is it running?)"
    if isinstance(error, httpx.ConnectError):
        return "could not connect (no route over this address family, or the service is down)"
    return f"the connection failed ({type(error).__name__})"


async def lookup(
    urls: list[str] | tuple[str, ...],
    family: int,
    proxy: str | None = None,
    ca_bundle: Path | None = None,
    trust_env: bool = True,
) -> EchoAnswer:
    """Ask each service in turn; the first good answer wins. Raises EchoFailed naming what each said.

    `proxy` and `ca_bundle` are the profile's: behind an intercepting proxy the echo services' certificates
    are re-signed by it, as the service's are. Without `proxy`, the environment's (HTTPS_PROXY, NO_PROXY)
    applies as it does to the service's requests: httpx drops it when given a transport, so it is read here."""
    if not urls:
        raise EchoFailed(f"No IPv{family} echo service is set.")
    verify: ssl.SSLContext | bool = True
    if ca_bundle is not None:
        try:
            verify = ssl.create_default_context(cafile=str(ca_bundle))
        except (OSError, ssl.SSLError) as error:
            raise EchoFailed(f"The profile's CA bundle could not be read: {error}.") from None
    problems = []
    for url in urls:
        host = urlsplit(url).hostname or url
        through = route_for(url, proxy, trust_env, None, None).proxy
        try:
            answer = await _ask(url, family, through, verify)
        except httpx.HTTPError as error:
            problems.append(f"{host}: {_plain(error, through)}")
            continue
        except EchoFailed as error:
            problems.append(f"{host}: {error}")
            continue
        return EchoAnswer(family, answer, host)
    raise EchoFailed("; ".join(problems))


async def _ask(url: str, family: int, proxy: str | None, verify: ssl.SSLContext | bool) -> str:
    """One service's answer, an address of `family`; EchoFailed saying what else it answered."""
    # Through a proxy the proxy picks the family of the outgoing connection; the local address would only
    # bind the hop to the proxy (and fail for an IPv4 proxy under "::"), so it is left out there.
    local_address = None if proxy else ("0.0.0.0" if family == 4 else "::")
    transport = httpx.AsyncHTTPTransport(local_address=local_address, retries=0, verify=verify, proxy=proxy)
    async with httpx.AsyncClient(
        transport=transport, timeout=TIMEOUT_S, follow_redirects=True, trust_env=False, verify=verify
    ) as client:
        response = await client.get(url, headers={"Accept": "text/plain, application/json"})
    if response.status_code != 200:
        raise EchoFailed(f"HTTP {response.status_code}")
    text = _address_from(response.text[:200])
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        raise EchoFailed("answered something that is not an address") from None
    if address.version != family:
        raise EchoFailed(f"answered an IPv{address.version} address")
    return str(address)
