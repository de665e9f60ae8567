"""Each network failure blames the part that failed and gives the fix that works, in the default run: the
loopback proxy plays a proxy that never answers CONNECT, a tunnel (as squid) and an intercepting proxy's
error page (as mitmproxy); the sandbox serves an expired certificate, one for another name, and mutual TLS.
tests/proxies meets the same cases through the real proxies."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from app.api.client import ServiceClient
from app.api.errors import (
    ClientCertificateProblem,
    ProxyAuthRequired,
    ProxyFailed,
    ProxySchemeWrong,
    TlsFailed,
)
from app.api.streaming import collect
from app.api.transport import ConnectionSettings
from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from tests.api.loopback_proxy import loopback_proxy, page, silent_proxy
from tests.proxies.servers import Pki, make_pki

AUTH_PAGE = page("407 Proxy Authentication Required", "sign in", 'proxy-authenticate: Basic realm="corp"\r\n')


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def _server(folder: Path, cert: Path, key: Path, client_ca: Path | None = None) -> SandboxServer:
    config = SandboxConfig(data_dir=folder, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")])
    return SandboxServer(config, tls=TlsOptions(cert, key, client_ca))


def _issued(ca: trustme.CA, folder: Path, name: str, leaf: trustme.LeafCert) -> tuple[Path, Path]:
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    return cert, key


@pytest.fixture(scope="module")
def bad_certificates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, SandboxServer | Path]]:
    """Two servers whose certificates a trusted CA issued: one expired yesterday, one for another host."""
    folder = tmp_path_factory.mktemp("bad-certs")
    ca = trustme.CA(organization_name="Right CA")
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    now = datetime.datetime.now(datetime.UTC)
    expired = ca.issue_cert(
        "127.0.0.1", not_before=now - datetime.timedelta(days=30), not_after=now - datetime.timedelta(days=1)
    )
    with (
        _server(folder / "a", *_issued(ca, folder, "expired", expired)) as old,
        _server(folder / "b", *_issued(ca, folder, "wrong", ca.issue_cert("api.example.com"))) as other,
    ):
        yield {"expired": old, "wrong_name": other, "ca": folder / "ca.pem"}


@pytest.fixture(scope="module")
def mtls_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with _server(tmp_path_factory.mktemp("mtls"), pki.server_cert, pki.server_key, pki.ca) as server:
        yield server


def key_of(server: SandboxServer) -> str:
    assert server.credentials is not None
    return server.credentials.api_key


def models(settings: ConnectionSettings) -> list[str]:
    async def run() -> list[str]:
        async with ServiceClient(settings, "") as client:
            return await client.models()

    return asyncio.run(run())


def test_a_proxy_that_never_answers_connect_is_named_within_the_request_deadline(
    mtls_sandbox: SandboxServer, pki: Pki
) -> None:
    """Not "the server gave no answer", and a stream does not wait its 300 s for the first byte."""
    sent: list[bool] = []

    async def stream(settings: ConnectionSettings) -> None:
        async with ServiceClient(settings, "") as client:
            await collect(
                client.responses.stream({"model": "service-pro", "input": "Hi"}, lambda: sent.append(True))
            )

    with silent_proxy() as proxy:
        settings = ConnectionSettings(
            mtls_sandbox.base_url, api_key="k", ca_bundle=pki.ca, proxy=proxy.url, request_deadline=0.25
        )
        name = proxy.url.removeprefix("http://")
        started = time.monotonic()
        with pytest.raises(ProxyFailed) as raised:
            asyncio.run(stream(settings))
        assert 0.25 <= time.monotonic() - started < 5  # the request's deadline; the first-byte wait is 300 s
        assert not sent  # the CONNECT is not the request: the server never got it
        with pytest.raises(ProxyFailed) as request_raised:
            models(settings)
    for text in (str(raised.value), str(request_raised.value)):
        assert f"The proxy {name} accepted the connection but did not answer" in text, text
        assert (
            "(CONNECT)" in text and "Wait for first byte" not in text and "server was never reached" in text
        )


def test_https_typed_for_a_plain_proxy_says_to_write_http(mtls_sandbox: SandboxServer, pki: Pki) -> None:
    with loopback_proxy() as proxy:
        https = proxy.url.replace("http://", "https://")
        with pytest.raises(ProxySchemeWrong) as raised:
            models(ConnectionSettings(mtls_sandbox.base_url, ca_bundle=pki.ca, proxy=https))
        assert len(proxy.requests) == 1  # it cannot succeed: not retried
    text = str(raised.value)
    assert f"Write {proxy.url} in the Proxy URL" in text and "CA bundle" not in text, text


@pytest.mark.parametrize("through", ["direct", "tunnel"])
def test_a_client_certificate_from_another_ca_is_said_refused_and_not_retried(
    through: str, mtls_sandbox: SandboxServer, pki: Pki, tmp_path: Path
) -> None:
    other = trustme.CA(organization_name="Other CA").issue_cert("console@example.com")
    other.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "other.pem"))
    with loopback_proxy() as proxy:
        settings = ConnectionSettings(
            mtls_sandbox.base_url,
            api_key=key_of(mtls_sandbox),
            ca_bundle=pki.ca,
            client_cert=tmp_path / "other.pem",
            proxy=proxy.url if through == "tunnel" else None,
        )
        with pytest.raises(ClientCertificateProblem) as raised:
            models(settings)
        if through == "tunnel":
            assert len(proxy.requests) == 2  # sent again once on a new connection, then said
    text = str(raised.value)
    assert "refused the client certificate the profile sends" in text, text
    assert "O=Other CA" in text and "connection lost" not in text.lower()


def test_no_client_certificate_through_a_tunnel_is_said(mtls_sandbox: SandboxServer, pki: Pki) -> None:
    with loopback_proxy() as proxy, pytest.raises(ClientCertificateProblem) as raised:
        models(ConnectionSettings(mtls_sandbox.base_url, api_key="k", ca_bundle=pki.ca, proxy=proxy.url))
    assert "asks for a client certificate (mutual TLS), and the profile sends none" in str(raised.value)


@pytest.mark.parametrize("through", ["direct", "tunnel"])
def test_an_expired_or_wrong_name_certificate_is_not_the_ca_bundle_s_fault(
    through: str, bad_certificates: dict[str, SandboxServer | Path]
) -> None:
    ca = bad_certificates["ca"]
    assert isinstance(ca, Path)
    said = {}
    with loopback_proxy() as proxy:
        for case in ("expired", "wrong_name"):
            server = bad_certificates[case]
            assert isinstance(server, SandboxServer)
            settings = ConnectionSettings(
                server.base_url, ca_bundle=ca, proxy=proxy.url if through == "tunnel" else None
            )
            with pytest.raises(TlsFailed) as raised:
                models(settings)
            said[case] = str(raised.value)
    for text in said.values():
        assert "The CA bundle is not the cause" in text, text
        assert "instead of the one set now" not in text and "proxy's CA" not in text
        assert "O=Right CA”" in text  # the issuer named
    assert "expired on " in said["expired"] and "must renew the certificate" in said["expired"]
    assert "is for api.example.com, not for 127.0.0.1" in said["wrong_name"]


def test_an_intercepting_proxy_s_certificate_page_is_read_and_not_retried(
    mtls_sandbox: SandboxServer, tmp_path: Path
) -> None:
    """mitmproxy checks the server's certificate itself: its 502 page says why (tests/proxies meets it)."""
    proxy_ca = trustme.CA(organization_name="Corporate inspection CA")
    proxy_ca.cert_pem.write_to_path(str(tmp_path / "proxy-ca.pem"))
    forged = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    proxy_ca.issue_cert("127.0.0.1").configure_cert(forged)
    bad_gateway = page("502 Bad Gateway", "Certificate verify failed: certificate has expired")
    with loopback_proxy(bad_gateway, tls=forged) as proxy:
        with pytest.raises(TlsFailed) as raised:
            models(
                ConnectionSettings(
                    mtls_sandbox.base_url, proxy=proxy.url, ca_bundle=tmp_path / "proxy-ca.pem"
                )
            )
        assert len(proxy.requests) == 1
    text = str(raised.value)
    assert f"The proxy {proxy.url.removeprefix('http://')} checks the server's certificate itself" in text
    assert "“Certificate verify failed: certificate has expired”" in text and "must renew it" in text
    assert "a web page, not the API" not in text


def test_credentials_from_https_proxy_are_not_called_the_profile_s(
    mtls_sandbox: SandboxServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    with loopback_proxy(AUTH_PAGE) as proxy:
        for name in ("NO_PROXY", "no_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HTTPS_PROXY", proxy.url.replace("//", "//alice:wrong@"))
        with pytest.raises(ProxyAuthRequired) as raised:
            models(ConnectionSettings(mtls_sandbox.base_url, api_key="k"))
    text = str(raised.value)
    assert "the user name and password in $HTTPS_PROXY were refused" in text and "profile" not in text, text


def test_a_missing_ca_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(TlsFailed) as raised:
        ServiceClient(ConnectionSettings("https://127.0.0.1:9/v1", ca_bundle=tmp_path / "corp-ca.pem"))
    assert str(raised.value) == f"The CA bundle {tmp_path / 'corp-ca.pem'} is missing: no such file."
