"""Through squid (a tunnel) and mitmproxy (re-signing TLS, checking the server's certificate itself), each
failure blames the part that failed: an expired or wrong-name server certificate is not the CA bundle's
fault, a client certificate the server refuses (or none) is not a lost connection, https:// typed for a plain
proxy, wrong credentials from $HTTPS_PROXY; and the public-IP lookup takes $HTTPS_PROXY as requests do."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trustme

from app.api.client import ServiceClient
from app.api.echo import lookup
from app.api.errors import ClientCertificateProblem, ProxyAuthRequired, ProxySchemeWrong, TlsFailed
from app.api.transport import ConnectionSettings
from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from tests.api.servers import echo_server
from tests.proxies.servers import Pki, mitmproxy, squid

pytestmark = pytest.mark.proxies

ENVIRONMENT_PROXIES = (
    "NO_PROXY",
    "no_proxy",
    "https_proxy",
    "http_proxy",
    "HTTP_PROXY",
    "ALL_PROXY",
    "all_proxy",
)


def models(settings: ConnectionSettings) -> list[str]:
    async def run() -> list[str]:
        async with ServiceClient(settings, "") as client:
            return await client.models()

    return asyncio.run(run())


@pytest.fixture(scope="module")
def bad_certificates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """The CA, and the base URLs of a server whose certificate it issued expired and of one for another host."""
    folder = tmp_path_factory.mktemp("bad-certs")
    ca = trustme.CA(organization_name="Right CA")
    ca.cert_pem.write_to_path(str(folder / "ca.pem"))
    now = datetime.datetime.now(datetime.UTC)
    leaves = {
        "expired": ca.issue_cert(
            "127.0.0.1",
            not_before=now - datetime.timedelta(days=30),
            not_after=now - datetime.timedelta(days=1),
        ),
        "wrong_name": ca.issue_cert("api.example.com"),
    }
    servers = []
    for name, leaf in leaves.items():
        leaf.cert_chain_pems[0].write_to_path(str(folder / f"{name}.pem"))
        leaf.private_key_pem.write_to_path(str(folder / f"{name}.key"))
        config = SandboxConfig(data_dir=folder / name, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")])
        servers.append(
            SandboxServer(config, tls=TlsOptions(folder / f"{name}.pem", folder / f"{name}.key")).start()
        )
    try:
        yield folder / "ca.pem", {name: server.base_url for name, server in zip(leaves, servers, strict=True)}
    finally:
        for server in servers:
            server.stop()


def test_an_expired_or_wrong_name_certificate_through_squid_is_not_blamed_on_a_ca(
    bad_certificates: tuple[Path, dict[str, str]],
) -> None:
    ca, urls = bad_certificates
    with squid() as proxy:
        said = {}
        for name, url in urls.items():
            with pytest.raises(TlsFailed) as raised:
                models(ConnectionSettings(url, proxy=proxy.with_credentials(), ca_bundle=ca))
            said[name] = str(raised.value)
    for text in said.values():
        assert f"through the proxy {proxy.url.removeprefix('http://')}" in text
        assert "The CA bundle is not the cause" in text and "proxy's CA" not in text, text
    assert "expired on " in said["expired"]
    assert "is for api.example.com, not for 127.0.0.1" in said["wrong_name"]


def test_mitmproxy_s_certificate_page_is_read_and_not_retried(
    bad_certificates: tuple[Path, dict[str, str]],
) -> None:
    ca, urls = bad_certificates
    with mitmproxy(upstream_ca=ca) as proxy:
        said = {}
        for name, url in urls.items():
            with pytest.raises(TlsFailed) as raised:
                models(ConnectionSettings(url, proxy=proxy.url, ca_bundle=proxy.ca_file))
            said[name] = str(raised.value)
        asked = proxy.log.read_text()
    for text in said.values():
        assert "checks the server's certificate itself" in text and "a web page, not the API" not in text, (
            text
        )
    assert "“Certificate verify failed: certificate has expired”" in said["expired"]
    assert "must renew it" in said["expired"] and "does not name 127.0.0.1" in said["wrong_name"]
    assert asked.count("502") <= len(urls)  # once each: not retried


def test_a_client_certificate_squid_tunnels_is_refused_in_words(
    pki: Pki, mtls_sandbox: SandboxServer, tmp_path: Path
) -> None:
    other = trustme.CA(organization_name="Other CA").issue_cert("console@example.com")
    other.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "other.pem"))
    assert mtls_sandbox.credentials is not None
    with squid() as proxy:
        settings = ConnectionSettings(
            mtls_sandbox.base_url,
            api_key=mtls_sandbox.credentials.api_key,
            ca_bundle=pki.ca,
            proxy=proxy.with_credentials(),
            client_cert=tmp_path / "other.pem",
        )
        with pytest.raises(
            ClientCertificateProblem, match="refused the client certificate the profile sends"
        ):
            models(settings)
        settings.client_cert = None
        with pytest.raises(ClientCertificateProblem, match="the profile sends none"):
            models(settings)


def test_https_typed_for_squid_says_to_write_http(https_sandbox: SandboxServer, pki: Pki) -> None:
    with squid() as proxy:
        https = proxy.with_credentials().replace("http://", "https://")
        with pytest.raises(ProxySchemeWrong, match=f"Write {proxy.url} in the Proxy URL"):
            models(ConnectionSettings(https_sandbox.base_url, proxy=https, ca_bundle=pki.ca))


def test_wrong_credentials_in_https_proxy_are_named_there(
    https_sandbox: SandboxServer, pki: Pki, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ENVIRONMENT_PROXIES:
        monkeypatch.delenv(name, raising=False)
    with squid() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.with_credentials(password="nope"))
        with pytest.raises(ProxyAuthRequired) as raised:
            models(ConnectionSettings(https_sandbox.base_url, ca_bundle=pki.ca))
    assert "in $HTTPS_PROXY were refused" in str(raised.value) and "profile" not in str(raised.value)


def test_the_echo_lookup_goes_through_https_proxy(pki: Pki, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trusting only mitmproxy's CA, the lookup succeeds only if it went through mitmproxy."""
    for name in ENVIRONMENT_PROXIES:
        monkeypatch.delenv(name, raising=False)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    with echo_server("127.0.0.1", tls=context) as url, mitmproxy(upstream_ca=pki.ca) as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        assert asyncio.run(lookup([url], 4, ca_bundle=proxy.ca_file)).address == "127.0.0.1"
