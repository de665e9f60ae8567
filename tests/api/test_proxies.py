"""The console behind a proxy and with corporate TLS, in the default run: a small proxy on loopback plays
what squid and mitmproxy do (tests/proxies runs the real ones), the sandbox serves TLS and mutual TLS.

Each error names the part that failed: the proxy (and it is not retried when it cannot succeed), whose
certificate and who issued it, or the client certificate."""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trustme
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from app.api.client import ServiceClient
from app.api.errors import (
    ApiError,
    ClientCertificateProblem,
    Forbidden,
    ProxyAuthRequired,
    ProxyRefused,
    ProxyUnreachable,
    TimedOut,
    TlsFailed,
)
from app.api.streaming import collect
from app.api.transport import ConnectionSettings
from app.core.playground.turns import ErrorKind, failure_of
from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from tests.api.loopback_proxy import loopback_proxy, page
from tests.loopback import free_port
from tests.proxies.servers import Pki, make_pki

AUTH_PAGE = page("407 Proxy Authentication Required", "sign in", 'proxy-authenticate: Basic realm="corp"\r\n')


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def https_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    config = SandboxConfig(
        data_dir=tmp_path_factory.mktemp("https"), trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")]
    )
    with SandboxServer(config, tls=TlsOptions(pki.server_cert, pki.server_key)) as server:
        yield server


@pytest.fixture(scope="module")
def mtls_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    config = SandboxConfig(data_dir=tmp_path_factory.mktemp("mtls"))
    with SandboxServer(config, tls=TlsOptions(pki.server_cert, pki.server_key, pki.ca)) as server:
        yield server


def models(settings: ConnectionSettings) -> list[str]:
    async def run() -> list[str]:
        async with ServiceClient(settings, "") as client:
            return await client.models()

    return asyncio.run(run())


def key_of(server: SandboxServer) -> str:
    assert server.credentials is not None
    return server.credentials.api_key


def test_a_407_asks_for_the_proxy_credentials_and_is_not_retried(https_sandbox: SandboxServer) -> None:
    with loopback_proxy(AUTH_PAGE) as proxy:
        with pytest.raises(ProxyAuthRequired) as raised:
            models(ConnectionSettings(https_sandbox.base_url, api_key=key_of(https_sandbox), proxy=proxy.url))
        assert len(proxy.requests) == 1  # it cannot succeed: asked once
    text = str(raised.value)
    assert f"The proxy {proxy.url.removeprefix('http://')} asks for credentials" in text
    assert "Proxy password" in text and "Is the server running" not in text
    with loopback_proxy(AUTH_PAGE) as proxy, pytest.raises(ProxyAuthRequired, match="were refused"):
        models(ConnectionSettings(https_sandbox.base_url, proxy=proxy.url.replace("//", "//al:wrong@")))


def test_a_407_for_a_plain_http_service_is_the_proxy_s_too() -> None:
    with loopback_proxy(AUTH_PAGE) as proxy, pytest.raises(ProxyAuthRequired):
        models(ConnectionSettings("http://192.0.2.1:8080/v1", api_key="k", proxy=proxy.url))


def test_the_proxy_s_403_is_never_taken_for_the_allowlist(https_sandbox: SandboxServer) -> None:
    with loopback_proxy(page("403 Forbidden", "Access denied by policy")) as proxy:
        with pytest.raises(ProxyRefused) as raised:
            models(ConnectionSettings(https_sandbox.base_url, api_key=key_of(https_sandbox), proxy=proxy.url))
        assert len(proxy.requests) == 1
    assert not isinstance(raised.value, Forbidden)
    assert "not the service's IP allowlist" in str(raised.value)
    assert failure_of(raised.value).kind == ErrorKind.CONNECTION  # the turn does not say Blocked
    with loopback_proxy(page("403 Forbidden", "Access denied")) as proxy, pytest.raises(ProxyRefused):
        models(ConnectionSettings("http://192.0.2.1:8080/v1", api_key="k", proxy=proxy.url))


def test_a_proxy_that_is_down_is_named(https_sandbox: SandboxServer) -> None:
    port = free_port()
    settings = ConnectionSettings(https_sandbox.base_url, proxy=f"http://127.0.0.1:{port}", max_retries=0)
    with pytest.raises(ProxyUnreachable, match=f"Cannot reach the proxy 127.0.0.1:{port}"):
        models(settings)


def test_a_proxy_url_httpx_cannot_use_is_said_in_words() -> None:
    with pytest.raises(ApiError, match="not a proxy scheme the console speaks"):
        ServiceClient(ConnectionSettings("https://api.example.com/v1", proxy="ftp://proxy:21"), "")

    async def socks() -> None:  # httpx's socks extra is a dependency: socks5:// is taken
        async with ServiceClient(ConnectionSettings("https://api.example.com/v1", proxy="socks5://h:1080")):
            pass

    asyncio.run(socks())


def test_an_untrusted_server_certificate_names_its_issuer(https_sandbox: SandboxServer) -> None:
    with pytest.raises(TlsFailed) as raised:
        models(ConnectionSettings(https_sandbox.base_url, api_key=key_of(https_sandbox)))
    text = str(raised.value)
    assert "The server's certificate for 127.0.0.1" in text
    assert "issued by “OU=Testing CA" in text and "O=Service Console test CA”" in text
    assert "(for 127.0.0.1, localhost)" in text and "CA bundle" in text


def test_an_untrusted_certificate_through_a_proxy_says_so(https_sandbox: SandboxServer) -> None:
    with loopback_proxy() as proxy, pytest.raises(TlsFailed) as raised:
        models(ConnectionSettings(https_sandbox.base_url, api_key=key_of(https_sandbox), proxy=proxy.url))
    text = str(raised.value)
    assert f"through the proxy {proxy.url.removeprefix('http://')}" in text
    assert "issued by" in text and "Service Console test CA" in text and "proxy's CA certificate" in text


def test_the_tunnel_works_with_the_ca_bundle(https_sandbox: SandboxServer, pki: Pki) -> None:
    with loopback_proxy() as proxy:
        settings = ConnectionSettings(
            https_sandbox.base_url, api_key=key_of(https_sandbox), proxy=proxy.url, ca_bundle=pki.ca
        )
        assert "service-pro" in models(settings)


def test_no_client_certificate_is_said_in_words(mtls_sandbox: SandboxServer, pki: Pki) -> None:
    with pytest.raises(ClientCertificateProblem) as raised:
        models(ConnectionSettings(mtls_sandbox.base_url, api_key=key_of(mtls_sandbox), ca_bundle=pki.ca))
    text = str(raised.value)
    assert "asks for a client certificate" in text and ".." not in text


def encrypted_key(pki: Pki, folder: Path, passphrase: bytes) -> Path:
    key = load_pem_private_key(pki.client_key.read_bytes(), None)
    path = folder / "encrypted.key"
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(passphrase),
        )
    )
    return path


def test_a_wrong_passphrase_is_said_in_words(mtls_sandbox: SandboxServer, pki: Pki, tmp_path: Path) -> None:
    key = encrypted_key(pki, tmp_path, b"right horse")
    for given, said in (("wrong", "the passphrase does not open the key"), (None, "no passphrase is set")):
        settings = ConnectionSettings(
            mtls_sandbox.base_url,
            ca_bundle=pki.ca,
            client_cert=pki.client_cert,
            client_key=key,
            client_key_password=given,
        )
        with pytest.raises(ClientCertificateProblem) as raised:
            ServiceClient(settings, "")
        assert said in str(raised.value) and "None" not in str(raised.value) and ".." not in str(raised.value)
    assert "service-pro" in models(
        ConnectionSettings(
            mtls_sandbox.base_url,
            api_key=key_of(mtls_sandbox),
            ca_bundle=pki.ca,
            client_cert=pki.client_cert,
            client_key=key,
            client_key_password="right horse",
        )
    )


def test_mutual_tls_through_an_intercepting_proxy_is_said_and_not_retried(
    mtls_sandbox: SandboxServer, pki: Pki, tmp_path: Path
) -> None:
    """The proxy re-signs TLS with its own CA and answers 502: the server asked it for a certificate."""
    proxy_ca = trustme.CA(organization_name="Corporate inspection CA")
    proxy_ca.cert_pem.write_to_path(str(tmp_path / "proxy-ca.pem"))
    forged = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    proxy_ca.issue_cert("127.0.0.1").configure_cert(forged)
    bad_gateway = page("502 Bad Gateway", "server closed connection")
    with loopback_proxy(bad_gateway, tls=forged) as proxy:
        with pytest.raises(ClientCertificateProblem) as raised:
            models(
                ConnectionSettings(
                    mtls_sandbox.base_url,
                    api_key=key_of(mtls_sandbox),
                    proxy=proxy.url,
                    ca_bundle=tmp_path / "proxy-ca.pem",
                    client_cert=pki.client,
                )
            )
        assert len(proxy.requests) == 1
    assert "Mutual TLS cannot work through an intercepting proxy" in str(raised.value)


def test_a_stream_waits_for_its_head_past_the_request_deadline() -> None:
    """A buffering proxy sends the head only once the whole answer is there (here ~0.4 s); the 0.2 s
    whole-request deadline does not cut it, the first-byte deadline does when it is shorter."""

    async def run(sandbox_url: str, key: str, proxy: str, first_byte: float) -> str:
        settings = ConnectionSettings(
            sandbox_url, api_key=key, proxy=proxy, request_deadline=0.2, first_byte_deadline=first_byte
        )
        async with ServiceClient(settings, "") as client:
            _response, text = await collect(
                client.responses.stream({"model": "service-pro", "input": "Write 20 words"})
            )
            return text

    with slow_sandbox() as (url, key), loopback_proxy() as proxy:
        started = time.monotonic()
        assert asyncio.run(run(url, key, proxy.url, 30.0)) and time.monotonic() - started > 0.2
        with pytest.raises(TimedOut, match=r"through the proxy .* “Wait for first byte”"):
            asyncio.run(run(url, key, proxy.url, 0.1))


@contextmanager
def slow_sandbox() -> Iterator[tuple[str, str]]:
    """A plain-HTTP sandbox of its own whose answers stream at 15 ms a delta (20 words: ~0.4 s)."""
    with tempfile.TemporaryDirectory() as folder:
        server = SandboxServer(SandboxConfig(data_dir=Path(folder), stream_delay_ms=15)).start()
        try:
            yield server.base_url, key_of(server)
        finally:
            server.stop()
