"""Who is asking: the request's source address (X-Forwarded-For read only from a trusted proxy) and its key."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from starlette.types import Scope

from app.netrules import Address, Network, parse_client_ip

_parse = lru_cache(maxsize=4096)(parse_client_ip)


def resolve_source_ip(scope: Scope, trusted: list[Network]) -> Address | None:
    """The client's address, or None for unknown (which fails closed wherever a list is active)."""
    return source_of(*source_texts(scope), trusted)


def source_texts(scope: Scope) -> tuple[str | None, tuple[bytes, ...]]:
    """What the source depends on: the peer's address and the X-Forwarded-For lines, as sent."""
    client = scope.get("client")
    forwarded = tuple(value for name, value in scope["headers"] if name == b"x-forwarded-for")
    return (client[0] if client else None), forwarded


def source_of(peer_text: str | None, forwarded: tuple[bytes, ...], trusted: list[Network]) -> Address | None:
    """The source from the peer and X-Forwarded-For (read only from a trusted peer)."""
    peer = _parse(peer_text) if peer_text else None
    if peer is None or not _inside(peer, trusted):
        return peer
    if (
        not forwarded
    ):  # no header: a direct request from the proxy's host, judged by the peer (nginx's realip)
        return peer
    lines = [value.decode("latin-1") for value in forwarded]
    hops = [hop.strip() for hop in ",".join(lines).split(",")]
    if not any(hops):
        return None
    address = None
    for hop in reversed(hops):
        address = _parse(hop)
        if address is None:
            return None
        if not _inside(address, trusted):
            return address
    # Every hop is trusted (the service leaves this case open): the leftmost is the client, as nginx's real_ip_recursive.
    return address


def _inside(address: Address, networks: list[Network]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def bearer_token(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of `Authorization: Bearer <token>` (the first Authorization header), or None."""
    for name, value in headers:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None
