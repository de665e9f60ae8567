"""The clients share one default SSL context per environment (app/api/connection.default_ssl_context): made
once, not once per client, and still the context httpx would make for that environment."""

from __future__ import annotations

from pathlib import Path

import pytest
import trustme

from app.api.connection import ConnectionSettings, default_ssl_context, ssl_context


def test_clients_without_tls_files_share_one_context_and_one_with_a_bundle_gets_its_own(
    tmp_path: Path,
) -> None:
    plain = ConnectionSettings(base_url="https://api.example.test/v1")
    assert ssl_context(plain) is ssl_context(ConnectionSettings(base_url="https://other.example.test/v1"))
    bundle = tmp_path / "ca.pem"
    trustme.CA().cert_pem.write_to_path(str(bundle))
    own = ssl_context(ConnectionSettings(base_url="https://api.example.test/v1", ca_bundle=bundle))
    assert own is not ssl_context(plain) and len(own.get_ca_certs()) == 1


def test_ssl_cert_file_chooses_the_cas_where_the_environment_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As httpx's own default: SSL_CERT_FILE names the CAs when the environment is trusted, and is ignored
    (certifi's CAs) when it is not; each environment has its own shared context."""
    bundle = tmp_path / "ca.pem"
    trustme.CA().cert_pem.write_to_path(str(bundle))
    certifi_context = default_ssl_context(trust_env=False)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    chosen = default_ssl_context()
    assert len(chosen.get_ca_certs()) == 1 and chosen is default_ssl_context()
    assert (
        default_ssl_context(trust_env=False) is certifi_context and len(certifi_context.get_ca_certs()) > 100
    )
