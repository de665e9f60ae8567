"""Mutual TLS switched on and off through the Admin API, with real TLS handshakes: while a certificate is
active for the organization (or a project), a request needs a client certificate issued by it, checked before
its key is read; uploading and activating need no restart; every change is in the audit log."""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from app.sandbox.store.keys import KeyRecord
from tests.conftest import SandboxFactory

BODY = {"model": "service-pro", "input": "hi"}


@dataclass
class Pki:
    server_ca: trustme.CA
    client_ca: trustme.CA
    other_ca: trustme.CA
    folder: Path

    def context(self, ca: trustme.CA | None = None) -> ssl.SSLContext:
        """A client context trusting the server; with a client certificate issued by `ca` when given."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # the server's CA alone, not the system's too
        self.server_ca.configure_trust(context)
        if ca is not None:
            ca.issue_cert("console@example.com").configure_cert(context)
        return context


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return Pki(trustme.CA(), trustme.CA(organization_name="Client CA"), trustme.CA(), tmp_path)


@pytest.fixture
def server(pki: Pki, tmp_path: Path) -> Iterator[SandboxServer]:
    issued = pki.server_ca.issue_cert("127.0.0.1", "localhost")
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    with SandboxServer(SandboxConfig(data_dir=tmp_path / "d"), tls=TlsOptions(cert, key)) as running:
        yield running


def admin(server: SandboxServer, context: ssl.SSLContext) -> httpx.Client:
    assert server.credentials is not None
    base = f"{server.base_url}/organizations/{server.credentials.org_id}"
    headers = {"authorization": f"Bearer {server.credentials.admin_key}"}
    return httpx.Client(base_url=base, headers=headers, verify=context)


def ask(server: SandboxServer, context: ssl.SSLContext, key: str | None = None) -> httpx.Response:
    assert server.credentials is not None
    key = key or server.credentials.api_key
    with httpx.Client(verify=context) as client:
        return client.post(
            f"{server.base_url}/responses", json=BODY, headers={"authorization": f"Bearer {key}"}
        )


def upload(client: httpx.Client, ca: trustme.CA, name: str = "clients") -> dict[str, Any]:
    response = client.post("/certificates", json={"name": name, "certificate": ca.cert_pem.bytes().decode()})
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_upload_parses_and_lists_the_certificate(server: SandboxServer, pki: Pki) -> None:
    with admin(server, pki.context()) as client:
        made = upload(client, pki.client_ca)
        listed = client.get("/certificates").json()
        full = client.get(f"/certificates/{made['id']}", params={"include[]": "content"}).json()
        again = client.post("/certificates", json={"certificate": pki.client_ca.cert_pem.bytes().decode()})
        leaf = pki.client_ca.issue_cert("x@example.com").cert_chain_pems[0].bytes().decode()
        not_ca = client.post("/certificates", json={"certificate": leaf})
    assert made["object"] == "certificate" and made["id"].startswith("cert_") and made["name"] == "clients"
    details = made["certificate_details"]
    assert "Client CA" in details["subject"] and details["subject"] == details["issuer"]
    assert len(details["fingerprint_sha256"].split(":")) == 32
    assert details["valid_at"] < details["expires_at"] and "content" not in details
    assert listed["data"][0] | {"object": "certificate"} == made | {"active": False}
    assert listed["data"][0]["object"] == "organization.certificate"
    assert full["certificate_details"]["content"].startswith("-----BEGIN CERTIFICATE-----")
    assert again.status_code == 409 and again.json()["error"]["code"] == "duplicate_certificate"
    assert not_ca.status_code == 400 and not_ca.json()["error"]["code"] == "invalid_certificate"


def test_active_certificate_is_required_before_the_key_and_released_on_deactivate(
    server: SandboxServer, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    with admin(server, pki.context()) as client:
        made = upload(client, pki.client_ca)
    # Uploading switched the handshake to asking for a certificate: no restart.
    with admin(server, pki.context(pki.client_ca)) as client:
        activated = client.post("/certificates/activate", json={"certificate_ids": [made["id"]]})
        assert activated.status_code == 200
        assert activated.json()["data"][0]["active"] is True

    looked_up: list[str] = []
    lookup = server.store.keys.lookup

    def counted(key: str) -> KeyRecord | None:
        looked_up.append(key)
        return lookup(key)

    monkeypatch.setattr(server.store.keys, "lookup", counted)

    assert server.credentials is not None
    wrong_secret = server.credentials.api_key[:-6] + "AAAAAA"  # names the project, is no key
    refused = ask(server, pki.context(), key=wrong_secret)
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "client_certificate_required" and "client certificate" in error["message"]
    assert looked_up == []  # refused before the key was read
    served = ask(server, pki.context(pki.client_ca))
    assert served.status_code == 200 and len(looked_up) == 1

    with admin(server, pki.context(pki.client_ca)) as client:
        busy = client.delete(f"/certificates/{made['id']}")
        off = client.post("/certificates/deactivate", json={"certificate_ids": [made["id"]]})
        gone = client.delete(f"/certificates/{made['id']}")
        events = client.get("/audit_log").json()["data"]
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "certificate_active"
    assert off.status_code == 200 and off.json()["data"][0]["active"] is False
    assert gone.status_code == 200 and gone.json() == {
        "object": "certificate.deleted",
        "id": made["id"],
        "deleted": True,
    }
    assert ask(server, pki.context()).status_code == 200  # admitted without a certificate again
    kinds = [(event["type"], event["result"]) for event in reversed(events)]
    assert kinds == [
        ("certificate.created", "applied"),
        ("certificate.activated", "applied"),
        ("certificate.deleted", "refused"),
        ("certificate.deactivated", "applied"),
        ("certificate.deleted", "applied"),
    ]


def test_a_certificate_of_another_authority_is_named_and_a_project_adds_its_own(
    server: SandboxServer, pki: Pki
) -> None:
    assert server.credentials is not None
    project = server.credentials.project_id
    with admin(server, pki.context()) as client:
        ours, theirs = upload(client, pki.client_ca), upload(client, pki.other_ca, "partner")
    with admin(server, pki.context(pki.client_ca)) as client:
        assert (
            client.post("/certificates/activate", json={"certificate_ids": [ours["id"]]}).status_code == 200
        )
        refused = ask(server, pki.context(pki.other_ca))
        on_project = client.post(
            f"/projects/{project}/certificates/activate", json={"certificate_ids": [theirs["id"]]}
        )
        listed = client.get(f"/projects/{project}/certificates").json()["data"]
        unknown = client.post("/certificates/activate", json={"certificate_ids": ["cert_nope"]})
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["code"] == "client_certificate_not_allowed" and "Testing cert" in error["message"]
    assert on_project.status_code == 200
    assert on_project.json()["data"][0]["object"] == "organization.project.certificate"
    assert {item["id"]: item["active"] for item in listed} == {ours["id"]: False, theirs["id"]: True}
    assert unknown.status_code == 404
    # The project's key: either the organization's or the project's certificate admits it.
    assert ask(server, pki.context(pki.other_ca)).status_code == 200
    assert ask(server, pki.context(pki.client_ca)).status_code == 200
    assert ask(server, pki.context()).json()["error"]["code"] == "client_certificate_required"


def test_plain_http_is_told_why_no_certificate_came(sandbox_factory: SandboxFactory, pki: Pki) -> None:
    sandbox = sandbox_factory()
    with sandbox.admin() as client:
        made = client.post(
            f"/organizations/{sandbox.creds.org_id}/certificates",
            json={"certificate": pki.client_ca.cert_pem.bytes().decode()},
        ).json()
        client.post(
            f"/organizations/{sandbox.creds.org_id}/certificates/activate",
            json={"certificate_ids": [made["id"]]},
        )
    with sandbox.api() as api:
        refused = api.get("/models")
    assert refused.status_code == 403
    assert "plain HTTP" in refused.json()["error"]["message"]


def test_activation_is_all_or_nothing_and_idempotent_and_the_limit_holds(
    server: SandboxServer, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    with admin(server, pki.context()) as client:
        made = upload(client, pki.client_ca)
        mixed = client.post("/certificates/activate", json={"certificate_ids": [made["id"], "cert_nope"]})
        listed = client.get("/certificates").json()["data"]
        renamed = client.post(f"/certificates/{made['id']}", json={"name": "build farm"})
        monkeypatch.setattr("app.sandbox.store.certificates.MAX_CERTIFICATES", 1)
        full = client.post("/certificates", json={"certificate": pki.other_ca.cert_pem.bytes().decode()})
    assert mixed.status_code == 404 and mixed.json()["error"]["code"] == "certificate_not_found"
    assert listed[0]["active"] is False  # nothing changed
    assert renamed.status_code == 200 and renamed.json()["name"] == "build farm"
    assert full.status_code == 400 and full.json()["error"]["code"] == "too_many_certificates"
    with admin(server, pki.context(pki.client_ca)) as client:
        for _ in range(2):
            again = client.post("/certificates/activate", json={"certificate_ids": [made["id"]]})
            assert again.status_code == 200 and again.json()["data"][0]["active"] is True
        events = client.get("/audit_log", params={"type": "certificate.activated"}).json()["data"]
    assert [(e["result"], e["entry_id"]) for e in events] == [("applied", made["id"]), ("refused", None)]


def test_a_locked_out_admin_recovers_with_the_dashboard(
    pki: Pki, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.sandbox.cli import main as sandbox_cli

    issued = pki.server_ca.issue_cert("127.0.0.1")
    cert, key = tmp_path / "server.pem", tmp_path / "server.key"
    issued.cert_chain_pems[0].write_to_path(str(cert))
    issued.private_key_pem.write_to_path(str(key))
    config = SandboxConfig(data_dir=tmp_path / "d", usage_flush_seconds=0.1)
    with SandboxServer(config, tls=TlsOptions(cert, key)) as server:
        with admin(server, pki.context()) as client:
            made = upload(client, pki.client_ca)
        with admin(server, pki.context(pki.client_ca)) as client:
            client.post("/certificates/activate", json={"certificate_ids": [made["id"]]}).raise_for_status()
        with admin(server, pki.context()) as client:  # the admin without a certificate: locked out
            assert client.get("/certificates").status_code == 403
            assert sandbox_cli(["certificates", "deactivate", "--data", str(tmp_path / "d")]) == 0
            assert f"deactivated {made['id']} for organization" in capsys.readouterr().out
            deadline = time.monotonic() + 5
            while client.get("/certificates").status_code == 403 and time.monotonic() < deadline:
                time.sleep(0.05)
            listed = client.get("/certificates")
            events = client.get("/audit_log").json()["data"]
    assert listed.status_code == 200 and listed.json()["data"][0]["active"] is False
    assert events[0]["type"] == "certificate.deactivated" and events[0]["actor"]["type"] == "dashboard"


def test_a_connection_opened_before_certificates_were_asked_for_is_closed_and_the_next_sends_one(
    server: SandboxServer, pki: Pki
) -> None:
    with admin(server, pki.context(pki.client_ca)) as client:  # has a certificate; not asked for it yet
        made = upload(client, pki.client_ca)
        client.post("/certificates/activate", json={"certificate_ids": [made["id"]]}).raise_for_status()
        first = client.get("/certificates")  # the connection of before: no certificate on it
        again = client.get("/certificates")  # a new connection: the handshake asks, the client sends
    assert first.status_code == 403 and first.headers["connection"] == "close"
    assert first.json()["error"]["code"] == "client_certificate_required"
    assert again.status_code == 200
