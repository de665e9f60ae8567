"""`service-console certs ...` against a real sandbox serving TLS: upload, the lockout guard, activate,
refused without a client certificate, deactivate; the allowlist commands' exit codes and --json."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import trustme

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from tests.cli.cli_support import Run, app_command, environment


@dataclass
class TlsSandbox:
    server: SandboxServer
    server_ca: Path
    client_ca: Path
    client_cert: Path
    client_key: Path

    def env(self, with_certificate: bool) -> dict[str, str]:
        credentials = self.server.credentials
        assert credentials is not None
        extra = {
            "SERVICE_BASE_URL": self.server.base_url,
            "SERVICE_ORG_ID": credentials.org_id,
            "SERVICE_ADMIN_KEY": credentials.admin_key,
            "SERVICE_CA_BUNDLE": str(self.server_ca),
        }
        if with_certificate:
            extra |= {
                "SERVICE_CLIENT_CERT": str(self.client_cert),
                "SERVICE_CLIENT_KEY": str(self.client_key),
            }
        return environment(None, **extra)


@pytest.fixture
def tls_sandbox(tmp_path: Path) -> Iterator[TlsSandbox]:
    server_ca, client_ca = trustme.CA(), trustme.CA(organization_name="Build farm CA")
    issued = server_ca.issue_cert("127.0.0.1", "localhost")
    client = client_ca.issue_cert("runner@example.com")
    files = {
        name: tmp_path / f"{name}.pem"
        for name in ("server", "server_key", "server_ca", "client_ca", "cert", "key")
    }
    issued.cert_chain_pems[0].write_to_path(str(files["server"]))
    issued.private_key_pem.write_to_path(str(files["server_key"]))
    server_ca.cert_pem.write_to_path(str(files["server_ca"]))
    client_ca.cert_pem.write_to_path(str(files["client_ca"]))
    client.cert_chain_pems[0].write_to_path(str(files["cert"]))
    client.private_key_pem.write_to_path(str(files["key"]))
    tls = TlsOptions(files["server"], files["server_key"])
    with SandboxServer(SandboxConfig(data_dir=tmp_path / "d"), tls=tls) as server:
        yield TlsSandbox(server, files["server_ca"], files["client_ca"], files["cert"], files["key"])


def certs(*args: str, env: dict[str, str]) -> Run:
    return app_command("certs", *args, env=env)


def test_upload_activate_refuse_and_deactivate(tls_sandbox: TlsSandbox, tmp_path: Path) -> None:
    bare, holder = tls_sandbox.env(False), tls_sandbox.env(True)
    assert certs("list", "--json", env=bare).json["certificates"] == []

    uploaded = certs("upload", str(tls_sandbox.client_ca), "--json", env=bare)
    assert uploaded.code == 0, uploaded.err
    made = uploaded.json
    assert made["id"].startswith("cert_") and "Build farm CA" in made["subject"]
    assert made["name"] == "client_ca" and made["active_in"] == []

    guarded = certs("activate", made["id"], env=bare)  # this machine sends no client certificate
    assert guarded.code == 1 and "lock this console out" in guarded.err and "--force" in guarded.err
    assert certs("list", "--json", env=bare).json["certificates"][0]["active_in"] == []

    activated = certs("activate", made["id"], "--json", env=holder)
    assert activated.code == 0, activated.err
    assert activated.json["certificates"][0]["active_in"] == [{"scope": "organization", "project_id": None}]

    refused = certs("list", "--json", env=bare)
    assert refused.code == 3
    assert "client certificate" in refused.json["error"]["message"]
    listed = certs("list", env=holder)
    assert listed.code == 0 and made["id"] in listed.out and "organization" in listed.out

    assert certs("deactivate", made["id"], env=holder).code == 0
    assert certs("list", env=bare).code == 0  # admitted without a certificate again
    assert certs("delete", made["id"], env=bare).code == 0


def test_usage_errors(tls_sandbox: TlsSandbox, tmp_path: Path) -> None:
    env = tls_sandbox.env(False)
    not_pem = tmp_path / "notes.txt"
    not_pem.write_text("hello")
    assert certs("upload", env=env).code == 2
    bad = certs("upload", str(not_pem), "--json", env=env)
    assert bad.code == 2 and bad.json["error"]["kind"] == "usage" and "PEM" in bad.json["error"]["message"]
    assert certs("activate", "cert_nope", env=env).code == 2
    assert certs("list", "--project", "nope", env=env).code == 2
