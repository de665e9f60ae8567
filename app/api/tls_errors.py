"""What a failed certificate check means, said of the certificate and of what fixes it: an issuer the
console does not trust (a CA bundle fixes that, or the proxy's CA when a proxy re-signs TLS), a certificate
that has expired or is not for the host asked (no CA bundle fixes those), or a client certificate the server
refused. An intercepting proxy checks the server's certificate itself and says why in a page of its own."""

from __future__ import annotations

import html
import re
from datetime import datetime
from enum import Enum
from pathlib import Path
from urllib.parse import urlsplit

from .certificates import certificate_file, peer_certificate
from .errors import ClientCertificateProblem, TlsFailed

PROFILES = "File > Profiles… (Ctrl+,)"


class Verdict(Enum):
    ISSUER = "issuer"  # issued by a CA the console (or the proxy) does not trust
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    NAME = "name"  # valid, but for other hosts than the one asked


def verdict_of(reason: str) -> Verdict:
    """What OpenSSL's verification reason (or a proxy's page quoting it) says was wrong."""
    text = reason.lower()
    if "has expired" in text or "certificate expired" in text:
        return Verdict.EXPIRED
    if "not yet valid" in text:
        return Verdict.NOT_YET_VALID
    if "mismatch" in text or "not valid for" in text:
        return Verdict.NAME
    return Verdict.ISSUER


def target(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or (443 if parts.scheme == 'https' else 80)}"


def _day(moment: datetime | None) -> str:
    return f" on {moment:%Y-%m-%d %H:%M} UTC" if moment is not None else ""


async def untrusted(
    text: str, url: str, proxy: str | None, proxy_name: str, bundle: Path | None
) -> TlsFailed:
    """A certificate that failed verification: whose it is, who issued it, what was wrong, and what fixes
    it. Only an unknown issuer is the CA bundle's business; through a proxy it is likely the proxy's."""
    reason = text.split("certificate verify failed:")[-1].split("(_ssl")[0].strip().rstrip(".") or text
    peer = await peer_certificate(url, proxy)
    named = f" It is {peer}." if peer else ""
    where, host = target(url), urlsplit(url).hostname or ""
    through = f" through the proxy {proxy_name}" if proxy else ""
    kind = verdict_of(reason)
    if kind is Verdict.EXPIRED:
        return TlsFailed(
            f"The certificate presented for {where}{through} expired{_day(peer.not_after if peer else None)}."
            f"{named} The CA bundle is not the cause and no CA can fix it: whoever runs {host} must renew "
            "the certificate (if the issuer named is your proxy's, the proxy's administrators)."
        )
    if kind is Verdict.NOT_YET_VALID:
        return TlsFailed(
            f"The certificate presented for {where}{through} is not valid yet (from"
            f"{_day(peer.not_before if peer else None) or ' a later date'}).{named} Check this computer's "
            "date and time."
        )
    if kind is Verdict.NAME:
        names = ", ".join(peer.names) if peer and peer.names else "other hosts"
        return TlsFailed(
            f"The certificate presented for {where}{through} is for {names}, not for {host} ({reason}).{named}"
            f" The CA bundle is not the cause: use a Base URL with a host the certificate names, in "
            f"{PROFILES}, or ask for a certificate that names {host}."
        )
    instead = " instead of the one set now" if bundle else ""
    if proxy:
        return TlsFailed(
            f"The certificate presented for {where}{through} is not trusted ({reason}).{named} A proxy that "
            "inspects TLS re-signs every site with its own CA, so this is likely the proxy's certificate: add "
            f"your proxy's CA certificate (the issuer named here) as the profile's CA bundle{instead}, in "
            f"{PROFILES}."
        )
    return TlsFailed(
        f"The server's certificate for {where} is not trusted ({reason}).{named} Add the CA that issued it "
        f"as the profile's CA bundle{instead}, in {PROFILES}."
    )


def page_text(content: bytes, limit: int = 300) -> str:
    """The words of a proxy's error page (its paragraphs, else its body), tags and spacing removed."""
    text = content[:20_000].decode("utf-8", "replace")
    paragraphs = re.findall(r"<p[^>]*>(.*?)</p>", text, re.DOTALL | re.IGNORECASE)
    body = (
        " ".join(paragraphs) if paragraphs else re.sub(r"<(head|title)[^>]*>.*?</\1>", " ", text, flags=re.S)
    )
    words = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
    return words if len(words) <= limit else words[: limit - 1] + "…"


def refused_by_proxy(said: str, url: str, proxy_name: str) -> TlsFailed:
    """An intercepting proxy's page saying the server's certificate failed its own check (mitmproxy: "502
    Bad Gateway … Certificate verify failed: certificate has expired"). The console's CA bundle has no part in
    that check, so sending again or changing it cannot help."""
    where, host = target(url), urlsplit(url).hostname or ""
    fix = {
        Verdict.EXPIRED: f"the certificate has expired: whoever runs {host} must renew it",
        Verdict.NOT_YET_VALID: "the certificate is not valid yet: the server's or the proxy's clock is off",
        Verdict.NAME: f"the certificate does not name {host}: use a Base URL with a host it names, in "
        f"{PROFILES}, or ask for a certificate that names {host}",
        Verdict.ISSUER: "the proxy does not trust the CA that issued the server's certificate: its "
        "administrators must add that CA to the proxy",
    }[verdict_of(said)]
    return TlsFailed(
        f"The proxy {proxy_name} checks the server's certificate itself, and refused the one {where} presented: "
        f"its page says “{said}”. The profile's CA bundle is not the cause: {fix}."
    )


def client_certificate_refused(url: str, cert: Path | None) -> ClientCertificateProblem:
    """The server closed each fresh connection right after the TLS handshake without answering: what a
    server does (asyncio's, uvicorn's) when it refuses the client certificate it was sent, or wanted one."""
    where = target(url)
    if cert is None:
        return ClientCertificateProblem(
            f"{where} closed the connection during the TLS handshake without answering: it asks for a client "
            f"certificate (mutual TLS), and the profile sends none. Add the client certificate and its key in "
            f"{PROFILES}."
        )
    summary = certificate_file(cert)
    until = f", valid until {summary.not_after:%Y-%m-%d}" if summary and summary.not_after else ""
    described = f" ({summary}{until})" if summary else ""
    return ClientCertificateProblem(
        f"{where} closed the connection right after the TLS handshake without answering, each time: it "
        f"refused the client certificate the profile sends{described}. A server does so when the "
        "certificate was issued by a CA it does not trust, or has expired: use a client certificate the "
        f"service's administrators issued or accept, in {PROFILES}."
    )
