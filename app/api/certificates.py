"""Certificates, for error messages a person can act on: why a client certificate or key would not load, and
whose certificate a server (or a proxy in between) presented when it was not trusted.

The ssl module says neither: a key that will not open is "[SSL] PEM lib" whatever the cause, and a failed
verification carries no certificate. So, only once a TLS failure has happened, the files are read with
`cryptography` and the peer's certificate is fetched again without verification (through the proxy's
CONNECT tunnel when there is one), to name its issuer and subject. Nothing here decides trust.
"""

from __future__ import annotations

import asyncio
import base64
import ssl
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:  # cryptography loads only once a TLS failure is explained
    from cryptography import x509

PROBE_TIMEOUT = 3.0


def key_problem(cert: Path, key: Path | None, password: str | None) -> str:
    """Why `load_cert_chain` refused the client certificate and key, in words."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        cert_data = cert.read_bytes()
        key_data = key.read_bytes() if key else cert_data
    except OSError as error:
        return f"{error.filename} cannot be read ({error.strerror})"
    try:
        x509.load_pem_x509_certificate(cert_data)
    except ValueError:
        return f"{cert} holds no PEM certificate"
    try:
        load_pem_private_key(key_data, password.encode() if password else None)
    except TypeError:  # cryptography: encrypted but no password, or a password for a plain key
        if password:
            return "the key is not encrypted, yet a passphrase is set: clear the Client key passphrase"
        return "the key is encrypted and no passphrase is set: enter the Client key passphrase"
    except ValueError:
        if password:
            return "the passphrase does not open the key: check the Client key passphrase"
        return f"{key or cert} holds no PEM private key"
    return "the key does not belong to the certificate"


@dataclass(frozen=True)
class PeerCertificate:
    issuer: str
    subject: str
    names: tuple[str, ...]  # the hosts and addresses it is for (subjectAltName)
    not_before: datetime | None = None
    not_after: datetime | None = None

    def __str__(self) -> str:
        names = f" (for {', '.join(self.names)})" if self.names else ""
        return f"issued by “{self.issuer}” to “{self.subject}”{names}"


def certificate_file(path: Path) -> PeerCertificate | None:
    """The first certificate in a PEM file (a client certificate), summed up; None when none can be read."""
    from cryptography import x509

    try:
        certificate = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError):
        return None
    return _described(certificate)


def _summary(der: bytes) -> PeerCertificate:
    from cryptography import x509

    return _described(x509.load_der_x509_certificate(der))


def _described(certificate: x509.Certificate) -> PeerCertificate:
    from cryptography import x509

    try:
        alternative = certificate.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        names = tuple(str(name.value) for name in alternative)
    except x509.ExtensionNotFound:
        names = ()
    issuer, subject = certificate.issuer.rfc4514_string(), certificate.subject.rfc4514_string()
    return PeerCertificate(
        issuer or "(no name)",
        subject or "(no name)",
        names,
        certificate.not_valid_before_utc,
        certificate.not_valid_after_utc,
    )


async def _connect(host: str, port: int, proxy: str | None) -> asyncio.StreamWriter:
    """A connection to host:port: direct, or a CONNECT tunnel through an http:// proxy, as httpx opens one
    (credentials as Basic). Not yet TLS."""
    if not proxy:
        _reader, writer = await asyncio.open_connection(host, port)
        return writer
    parts = urlsplit(proxy)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
    try:
        lines = [f"CONNECT {host}:{port} HTTP/1.1", f"Host: {host}:{port}"]
        if parts.username:
            credentials = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
            lines.append(f"Proxy-Authorization: Basic {base64.b64encode(credentials).decode()}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200" not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError("the proxy refused the tunnel")
    except BaseException:
        writer.close()
        await writer.wait_closed()
        raise
    return writer


async def peer_certificate(url: str, proxy: str | None) -> PeerCertificate | None:
    """The certificate presented for `url`'s host (through `proxy` when set), unverified; None when it
    cannot be had (another kind of proxy than http://, no connection)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "", parts.port or 443
    if proxy and not proxy.startswith("http://"):
        return None
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # only to read the certificate that verification refused
    der = None
    try:
        async with asyncio.timeout(PROBE_TIMEOUT):
            writer = await _connect(host, port, proxy)
            try:
                await writer.start_tls(context, server_hostname=host)
                ssl_object = writer.get_extra_info("ssl_object")
                der = ssl_object.getpeercert(binary_form=True) if ssl_object else None
            finally:
                writer.close()
                try:
                    await writer.wait_closed()
                except (OSError, ssl.SSLError):
                    pass
    except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ssl.SSLError):
        return None
    return _summary(der) if der else None
