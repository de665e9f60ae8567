"""Mutual TLS at the gateway: while a certificate is active for a request's organization or project, the
request must come with a client certificate issued by one of them (docs/contract.md, "Mutual TLS").

The handshake asks every client for a certificate once one is uploaded (CERT_OPTIONAL, so a client without
one still connects and gets an error naming what is missing) and verifies what is sent against every
uploaded certificate; here the gateway decides with the ones in force for the request. The client's
certificate reaches the gateway through the ASGI TLS extension (`scope["extensions"]["tls"]`), which the
sandbox's protocol fills (slow_clients.py). Its parse and the signature check are remembered per
certificate: a client sends the same one on every request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from cryptography import x509

from app.sandbox.errors import error_bytes
from app.sandbox.store.certificate_record import CaCertificate
from app.sandbox.store.certificates import Certificates

HINT = (
    "Send a client certificate issued by one of the CA certificates active for it "
    "(in the console: File > Profiles > Client certificate and key)."
)
MISSING = error_bytes(
    403,
    "A client certificate is required: mutual TLS is on for this organization or project, and the request "
    f"came without one. {HINT}",
    "client_certificate_required",
)
PLAIN_HTTP = error_bytes(
    403,
    "A client certificate is required: mutual TLS is on for this organization or project, and the request "
    "came over plain HTTP, which carries none. Use https:// (the sandbox serves it when started with "
    "--tls-cert and --tls-key).",
    "client_certificate_required",
)


@lru_cache(maxsize=256)
def _leaf(pem: str) -> x509.Certificate | None:
    try:
        return x509.load_pem_x509_certificate(pem.encode())
    except ValueError:
        return None


@lru_cache(maxsize=1024)
def _verdict(pem: str, in_force: tuple[CaCertificate, ...]) -> bytes | None:
    """None when the certificate was issued by one in force, else the refusal naming it."""
    leaf = _leaf(pem)
    if leaf is not None and any(authority.issued(leaf) for authority in in_force):
        return None
    try:
        named = (
            f"(subject “{leaf.subject.rfc4514_string()}”, issued by “{leaf.issuer.rfc4514_string()}”) "
            if leaf is not None
            else ""
        )
    except ValueError:  # a name it cannot spell: the refusal goes without it
        named = ""
    message = (
        f"The client certificate sent {named}was not issued by a CA certificate active for this "
        f"organization or project. {HINT}"
    )
    return error_bytes(403, message, "client_certificate_not_allowed")


def client_chain(scope: Mapping[str, Any]) -> Sequence[str] | None:
    """The client's certificates (PEM, its own first) as the TLS extension gives them; None over plain
    HTTP (no TLS extension at all)."""
    tls = scope.get("extensions", {}).get("tls")
    return None if tls is None else tls.get("client_cert_chain", ())


def certificate_refusal(
    certificates: Certificates, scope: Mapping[str, Any], org_id: str | None, project_id: str | None
) -> bytes | None:
    """The 403 body for a request that lacks a certificate its organization or project asks for; None when
    it is admitted (or none is asked for)."""
    if org_id is None:
        return None  # no known organization: nothing is asked, the key check refuses it
    in_force = certificates.in_force(org_id, project_id)
    if not in_force:
        return None
    chain = client_chain(scope)
    if chain is None:
        return PLAIN_HTTP
    if not chain:
        return MISSING
    return _verdict(chain[0], in_force)
