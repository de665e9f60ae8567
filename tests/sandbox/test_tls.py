"""HTTPS, and mutual TLS: no client certificate is refused, a good one is served."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import httpx
import pytest
import trustme

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions


@pytest.fixture
def pki(tmp_path: Path) -> dict[str, Any]:
    ca = trustme.CA()
    server_cert = ca.issue_cert("127.0.0.1", "localhost")
    client_cert = ca.issue_cert("console@example.com")
    paths = {
        "ca": tmp_path / "ca.pem",
        "cert": tmp_path / "server.pem",
        "key": tmp_path / "server.key",
        "client": tmp_path / "client.pem",
    }
    ca.cert_pem.write_to_path(str(paths["ca"]))
    server_cert.cert_chain_pems[0].write_to_path(str(paths["cert"]))
    server_cert.private_key_pem.write_to_path(str(paths["key"]))
    client_cert.private_key_and_cert_chain_pem.write_to_path(str(paths["client"]))
    return paths


def context(pki: dict[str, Any], with_client_cert: bool) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(pki["ca"]))
    if with_client_cert:
        ctx.load_cert_chain(str(pki["client"]))
    return ctx


def test_https(pki: dict[str, Any], tmp_path: Path) -> None:
    tls = TlsOptions(pki["cert"], pki["key"])
    with SandboxServer(SandboxConfig(data_dir=tmp_path / "d"), tls=tls) as server:
        assert server.base_url.startswith("https://")
        response = httpx.get(server.base_url.removesuffix("/v1") + "/healthz", verify=context(pki, False))
        assert response.status_code == 200
        with pytest.raises(httpx.ConnectError):
            httpx.get(server.base_url.removesuffix("/v1") + "/healthz")  # unknown CA


def test_mutual_tls(pki: dict[str, Any], tmp_path: Path) -> None:
    tls = TlsOptions(pki["cert"], pki["key"], pki["ca"])
    with SandboxServer(SandboxConfig(data_dir=tmp_path / "d"), tls=tls) as server:
        assert server.credentials is not None
        key = server.credentials.api_key
        url = server.base_url + "/responses"
        body = {"model": "service-pro", "input": "hi"}
        with pytest.raises((httpx.ConnectError, httpx.ReadError, httpx.RemoteProtocolError)):
            httpx.post(
                url, json=body, headers={"authorization": f"Bearer {key}"}, verify=context(pki, False)
            ).raise_for_status()
        served = httpx.post(
            url, json=body, headers={"authorization": f"Bearer {key}"}, verify=context(pki, True)
        )
        assert served.status_code == 200
