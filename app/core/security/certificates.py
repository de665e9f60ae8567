"""Mutual TLS as the console decides about it, without Qt: whether a certificate expires soon, and whether
activating one would lock this console out (its profile sends no client certificate that one in force
issued). Shared by the window and the command line, as the allowlist's lockout guard is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.mtls import Certificate

MAX_PEM_BYTES = 64 * 1024  # what the service accepts: a CA certificate is a few kilobytes
EXPIRING_DAYS = 30  # a certificate that expires within this many days is flagged in the table and the list
DAY = 86_400


class CertificateFileError(ValueError):
    """The chosen file is not one the service would take; the message says why."""


def read_pem(path: Path) -> str:
    """The PEM text of a certificate file, checked for size and shape before anything is sent."""
    try:
        if path.stat().st_size > MAX_PEM_BYTES:
            raise CertificateFileError(
                f"{path.name} is larger than {MAX_PEM_BYTES // 1024} KB: not a certificate."
            )
        text = path.read_text("ascii")
    except OSError as error:
        raise CertificateFileError(f"{path.name} cannot be read ({error.strerror}).") from None
    except UnicodeDecodeError:
        raise CertificateFileError(
            f"{path.name} is not PEM text (a DER file? convert it with openssl x509)."
        ) from None
    if "-----BEGIN CERTIFICATE-----" not in text:
        raise CertificateFileError(f"{path.name} holds no PEM certificate (-----BEGIN CERTIFICATE-----).")
    return text


def expiry_warning(certificate: Certificate, now: float, days: int = EXPIRING_DAYS) -> str | None:
    """ "expired 3 days ago" / "expires in 12 days", or None when it has longer than `days` left."""
    expires_at = certificate.certificate_details.expires_at
    if expires_at is None:
        return None
    left = expires_at - now
    if left <= 0:
        ago = int(-left // DAY)
        return "expired today" if ago == 0 else f"expired {ago} day{'s' if ago != 1 else ''} ago"
    if left > days * DAY:
        return None
    whole = int(left // DAY)
    return "expires within a day" if whole == 0 else f"expires in {whole} day{'s' if whole != 1 else ''}"


def day_of(seconds: int | None) -> str:
    return "" if seconds is None else datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d")


def places_text(certificate: Certificate, project_label: dict[str, str]) -> str:
    """Where it is active, as the table says it: "organization", "project Alpha", or "—"."""
    places = [
        "organization"
        if place.scope == "organization"
        else f"project {project_label.get(place.project_id or '', place.project_id or '?')}"
        for place in certificate.active_in
    ]
    return ", ".join(places) or "—"


@dataclass(frozen=True)
class ClientCertificate:
    """What the profile's client certificate is, read from its file: the issuer it names, or why not."""

    issuer: str | None
    problem: str | None = None

    @classmethod
    def read(cls, path: str) -> ClientCertificate:
        if not path:
            return cls(None, "its profile has no client certificate")
        from cryptography import x509

        try:
            data = Path(path).expanduser().read_bytes()
        except OSError as error:
            return cls(None, f"its client certificate {path} cannot be read ({error.strerror})")
        try:
            found = x509.load_pem_x509_certificates(data)
        except ValueError:
            return cls(None, f"{path} holds no PEM certificate")
        return cls(found[0].issuer.rfc4514_string())


def lockout_reason(
    base_url: str,
    client_cert: str,
    certificate: Certificate,
    in_force: Iterable[Certificate],
    place: str,
) -> str | None:
    """Why activating `certificate` at `place` ("the organization", "project Alpha") would lock this console
    out, or None when its profile sends a client certificate issued by one that would be in force there
    (`in_force`: those already active there, with `certificate` added by the caller or not).

    "Issued by" is read from the issuer the client certificate names, as the service's first check does; the
    service also checks the signature, which a certificate made for this CA always carries."""
    if not base_url.lower().startswith("https://"):
        return (
            f"Activating “{certificate.label}” for {place} would lock this console out: its profile connects "
            "over plain HTTP, which carries no client certificate."
        )
    mine = ClientCertificate.read(client_cert)
    if mine.issuer is None:
        return f"Activating “{certificate.label}” for {place} would lock this console out: {mine.problem}."
    subjects = {c.certificate_details.subject for c in (certificate, *in_force)}
    if mine.issuer in subjects:
        return None
    return (
        f"Activating “{certificate.label}” for {place} would lock this console out: its client certificate "
        f"was issued by “{mine.issuer}”, which is not a certificate active there."
    )


@dataclass(frozen=True)
class CertificateRow:
    """One row of the Certificates table, as the window shows it (the window never sees the API's models)."""

    id: str
    name: str
    subject: str
    issuer: str
    expires: str  # the day it expires, UTC
    fingerprint: str
    active_in: str  # "organization, project Alpha" or "—"
    warning: str | None  # "expires in 12 days", "expired 3 days ago"
    active_for_organization: bool
    active_projects: frozenset[str]


def certificate_rows(
    certificates: Iterable[Certificate], projects: dict[str, str], now: float
) -> list[CertificateRow]:
    return [
        CertificateRow(
            c.id,
            c.name or "",
            c.certificate_details.subject,
            c.certificate_details.issuer,
            day_of(c.certificate_details.expires_at),
            c.certificate_details.fingerprint_sha256,
            places_text(c, projects),
            expiry_warning(c, now),
            c.active_for_organization,
            frozenset(p.project_id for p in c.active_in if p.project_id),
        )
        for c in certificates
    ]
