"""Mutual TLS as the console decides about it: expiry warnings, the lockout guard, the test CA it makes."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from cryptography import x509

from app.api.mtls import ActiveAt, Certificate, CertificateDetails
from app.core.security.certificates import (
    DAY,
    CertificateFileError,
    certificate_rows,
    expiry_warning,
    lockout_reason,
    read_pem,
)
from app.core.security.trial_pki import make_trial_pki

NOW = 1_800_000_000


def certificate(
    subject: str = "CN=Clients CA", expires_in_days: float = 400, **fields: object
) -> Certificate:
    details = CertificateDetails(
        valid_at=NOW - DAY, expires_at=int(NOW + expires_in_days * DAY), subject=subject, issuer=subject
    )
    return Certificate.model_validate(
        {"id": "cert_1", "name": "clients", "certificate_details": details, **fields}
    )


@pytest.mark.parametrize(
    ("days", "said"),
    [
        (400, None),
        (31, None),
        (29.5, "expires in 29 days"),
        (1, "expires in 1 day"),
        (0.5, "expires within a day"),
        (-2.5, "expired 2 days ago"),
        (-0.1, "expired today"),
    ],
)
def test_expiry_warning_within_30_days(days: float, said: str | None) -> None:
    assert expiry_warning(certificate(expires_in_days=days), NOW) == said


def test_rows_say_where_each_is_active() -> None:
    places = (ActiveAt(scope="organization"), ActiveAt(scope="project", project_id="proj_1"))
    row = certificate_rows([certificate(active_in=places)], {"proj_1": "Alpha"}, NOW)[0]
    assert row.active_in == "organization, project Alpha" and row.active_projects == {"proj_1"}
    assert row.active_for_organization and row.warning is None


def test_the_test_ca_issues_the_client_certificate_in_private_files(tmp_path: Path) -> None:
    made = make_trial_pki(tmp_path / "pki")
    ca = x509.load_pem_x509_certificate(made.ca_cert.read_bytes())
    client = x509.load_pem_x509_certificate(made.client_cert.read_bytes())
    client.verify_directly_issued_by(ca)  # raises if not
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    for path in (made.ca_cert, made.client_cert, made.client_key):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "pki").stat().st_mode) == 0o700
    assert "PRIVATE KEY" in made.client_key.read_text() and "PRIVATE KEY" not in made.ca_cert.read_text()


def test_lockout_guard_reads_the_profiles_client_certificate(tmp_path: Path) -> None:
    made = make_trial_pki(tmp_path)
    issuer = x509.load_pem_x509_certificate(made.ca_cert.read_bytes()).subject.rfc4514_string()
    ours, theirs = certificate(issuer), certificate("CN=Someone else")
    https = "https://api.example.com/v1"
    assert lockout_reason(https, str(made.client_cert), ours, [], "the organization") is None
    assert lockout_reason(https, str(made.client_cert), theirs, [ours], "the organization") is None
    other = lockout_reason(https, str(made.client_cert), theirs, [], "the organization")
    assert other is not None and issuer in other
    none = lockout_reason(https, "", ours, [], "project Alpha")
    assert none is not None and "no client certificate" in none and "project Alpha" in none
    plain = lockout_reason("http://127.0.0.1:8080/v1", str(made.client_cert), ours, [], "the organization")
    assert plain is not None and "plain HTTP" in plain


def test_read_pem_refuses_what_the_service_would(tmp_path: Path) -> None:
    big, binary, text = tmp_path / "big.pem", tmp_path / "ca.der", tmp_path / "notes.pem"
    big.write_text("-----BEGIN CERTIFICATE-----\n" + "A" * 70_000)
    binary.write_bytes(b"\x30\x82\xff\xfe")
    text.write_text("hello")
    for path, said in (
        (big, "larger"),
        (binary, "DER"),
        (text, "no PEM"),
        (tmp_path / "gone.pem", "cannot be read"),
    ):
        with pytest.raises(CertificateFileError, match=said):
            read_pem(path)


def test_the_history_names_a_certificate_change() -> None:
    from app.api.audit import AuditEvent
    from app.core.security.history_rows import from_audit

    event = AuditEvent.model_validate(
        {
            "id": "audit_7",
            "type": "certificate.activated",
            "created_at": NOW,
            "actor": {"type": "api_key", "id": "key_1", "name": "First admin key"},
            "scope": "project",
            "project_id": "proj_1",
            "entry_id": "cert_1",
            "after": {"id": "cert_1", "active": True},
            "result": "applied",
        }
    )
    row = from_audit(event, lambda project: f"Project {project}" if project else "Organization")
    assert (row.action, row.what, row.scope, row.ok) == (
        "certificate activated",
        "cert_1",
        "Project proj_1",
        True,
    )
