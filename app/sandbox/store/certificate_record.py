"""A CA certificate an organization uploaded for mutual TLS: parsed once from its PEM, and the check that a
client certificate was issued by it.

Only what the service shows and what the gateway needs is kept: subject, issuer, SHA-256 fingerprint, the
validity period, and the parsed certificate for the signature check.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes


class CertificateProblem(ValueError):
    """The PEM is not one CA certificate the service can use; the message says why, for a person."""


def fingerprint_of(certificate: x509.Certificate) -> str:
    """SHA-256 of the DER, as colon-separated upper-case hex (as `openssl x509 -fingerprint -sha256`)."""
    return certificate.fingerprint(hashes.SHA256()).hex(":").upper()


def parse_ca(pem: str, now: float) -> x509.Certificate:
    """The one CA certificate in `pem`; CertificateProblem when there is none, more than one, it is not a CA
    (a verifier refuses a client certificate whose issuer is not), or it has expired."""
    try:
        found = x509.load_pem_x509_certificates(pem.encode())
    except ValueError:
        raise CertificateProblem(
            "'certificate' holds no PEM certificate (-----BEGIN CERTIFICATE-----)."
        ) from None
    if len(found) != 1:
        raise CertificateProblem(f"'certificate' holds {len(found)} certificates: upload one at a time.")
    certificate = found[0]
    try:
        constraints = certificate.extensions.get_extension_for_class(x509.BasicConstraints).value
        is_ca = constraints.ca
        for name in (certificate.subject, certificate.issuer):
            name.rfc4514_string()  # what the API shows: a name it cannot spell is refused here
    except x509.ExtensionNotFound:
        is_ca = False
    except Exception:  # a malformed extension or name, of many kinds: the client's input
        raise CertificateProblem("The certificate's extensions or names cannot be read.") from None
    if not is_ca:
        raise CertificateProblem(
            "The certificate is not a CA certificate (its basicConstraints lack CA:TRUE): upload the "
            "certificate of the authority that issues your client certificates."
        )
    if certificate.not_valid_after_utc.timestamp() <= now:
        raise CertificateProblem("The certificate has expired.")
    try:  # what the TLS handshake will trust it with: a certificate OpenSSL refuses is refused here
        # A bare client context: the system's CAs, which the default one would load first (~20 ms), are not
        # what is checked.
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cadata=pem)
    except (ssl.SSLError, ValueError):
        raise CertificateProblem("The certificate cannot be used to verify TLS clients.") from None
    return certificate


@dataclass(frozen=True)
class CaCertificate:
    """One uploaded certificate: what the Admin API shows, and the parsed certificate for the gateway."""

    id: str
    org_id: str
    name: str
    pem: str
    created_at: int
    parsed: x509.Certificate = field(compare=False, repr=False)

    @classmethod
    def of(cls, id: str, org_id: str, name: str, pem: str, created_at: int) -> CaCertificate:
        parsed = x509.load_pem_x509_certificate(pem.encode())
        return cls(id, org_id, name, pem, created_at, parsed)

    @property
    def fingerprint(self) -> str:
        return fingerprint_of(self.parsed)

    @property
    def subject(self) -> str:
        return self.parsed.subject.rfc4514_string()

    @property
    def issuer(self) -> str:
        return self.parsed.issuer.rfc4514_string()

    @property
    def valid_at(self) -> int:
        return int(self.parsed.not_valid_before_utc.timestamp())

    @property
    def expires_at(self) -> int:
        return int(self.parsed.not_valid_after_utc.timestamp())

    def issued(self, client: x509.Certificate) -> bool:
        """Whether `client` names this certificate's subject as its issuer and carries its signature."""
        if client.issuer != self.parsed.subject:
            return False
        try:
            client.verify_directly_issued_by(self.parsed)
        except (
            InvalidSignature,
            UnsupportedAlgorithm,
            ValueError,
            TypeError,
        ):  # not its signature, or a key type it cannot check
            return False
        return True

    def details(self, content: bool = False) -> dict[str, Any]:
        """`certificate_details`: the hosted fields (valid_at, expires_at, content on request) and this
        service's own (subject, issuer, fingerprint; docs/contract.md)."""
        details: dict[str, Any] = {
            "valid_at": self.valid_at,
            "expires_at": self.expires_at,
            "subject": self.subject,
            "issuer": self.issuer,
            "fingerprint_sha256": self.fingerprint,
        }
        if content:
            details["content"] = self.pem
        return details
