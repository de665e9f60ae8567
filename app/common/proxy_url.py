"""A proxy URL as a person types it, checked and split: the URL the profile keeps (no password) and the
password the keychain keeps.

Pure string work (no httpx), so the profile dialog can check the field as it is typed and the transport can
rebuild the URL it hands httpx. Schemes are the ones httpx speaks: http and https, and socks5/socks5h
through its `socks` extra (socksio, a dependency of the console).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

SCHEMES = ("http", "https", "socks5", "socks5h")
EXAMPLE = "http://proxy.example.com:8080"


class BadProxyUrl(ValueError):
    """The text cannot be a proxy URL; `str()` says why and what would be, `short` why in a few words."""

    def __init__(self, message: str, short: str = "") -> None:
        super().__init__(message)
        self.short = short or message.rstrip(".")


@dataclass(frozen=True)
class ProxyUrl:
    """A checked proxy URL. `public` is what console.ini keeps and the log may show: no password."""

    scheme: str
    host: str
    port: int | None
    username: str = ""
    password: str = ""

    @property
    def address(self) -> str:
        """host:port, as an error message names the proxy."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}" if self.port else host

    @property
    def public(self) -> str:
        user = f"{quote(self.username, safe='')}@" if self.username else ""
        return f"{self.scheme}://{user}{self.address}"

    def with_password(self, password: str | None) -> str:
        """The URL httpx needs: the stored password put back (percent-encoded), when there is a user."""
        secret = password if password is not None else self.password
        if not self.username:
            return self.public
        credentials = quote(self.username, safe="")
        if secret:
            credentials += ":" + quote(secret, safe="")
        return f"{self.scheme}://{credentials}@{self.address}"


def parse_proxy_url(text: str) -> ProxyUrl:
    """Check a proxy URL; a missing scheme is taken as http:// (what curl and browsers assume).

    Raises BadProxyUrl with a sentence for anything httpx would refuse or misread."""
    text = text.strip()
    if not text:
        raise BadProxyUrl("The proxy URL is empty.")
    if "://" not in text:
        text = "http://" + text
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise BadProxyUrl(
            f"“{scheme}://” is not a proxy scheme the console speaks: use http://, https:// or socks5:// "
            f"(for example {EXAMPLE}).",
            f"“{scheme}://” is not a proxy scheme (http, https, socks5)",
        )
    if not parts.hostname:
        raise BadProxyUrl(f"The proxy URL names no host: it should look like {EXAMPLE}.", "No host")
    try:
        port = parts.port
    except ValueError:
        raise BadProxyUrl("The proxy URL's port is not a number from 1 to 65535.") from None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise BadProxyUrl(
            f"A proxy URL is a host and a port only, with no path: like {EXAMPLE}.", "No path, please"
        )
    return ProxyUrl(
        scheme=scheme,
        host=parts.hostname,
        port=port,
        username=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
    )


def public_form(text: str) -> str:
    """The URL without its password, for a message or a log line; the text itself if it is no URL (then
    with anything between :// and @ hidden)."""
    try:
        return parse_proxy_url(text).public
    except BadProxyUrl:
        head, at, tail = text.rpartition("@")
        return f"{head.split('://')[0]}://***@{tail}" if at and "://" in head else text
