"""The console through proxy software nobody here wrote: mitmproxy re-signing TLS with its own CA (buffering
whole answers by default, streaming with stream_large_bodies), mitmproxy and squid asking for credentials
(407), squid refusing a CONNECT (403). Each failure the issue lists, met for real."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from app.api.client import ServiceClient
from app.api.echo import EchoFailed, lookup
from app.api.errors import ClientCertificateProblem, ProxyAuthRequired, ProxyRefused, TlsFailed
from app.api.transport import ConnectionSettings
from app.core.playground.snippets import SnippetNetwork, all_snippets
from app.core.playground.turn_runner import TurnRun
from app.core.playground.turns import Turn, TurnStatus
from app.sandbox import SandboxServer
from tests.api.servers import echo_server
from tests.proxies.servers import PROXY_PASSWORD, PROXY_USER, Pki, mitmproxy, squid

pytestmark = pytest.mark.proxies


def key_of(server: SandboxServer) -> str:
    assert server.credentials is not None
    return server.credentials.api_key


def models(settings: ConnectionSettings) -> list[str]:
    async def run() -> list[str]:
        async with ServiceClient(settings, "") as client:
            return await client.models()

    return asyncio.run(run())


def run_turn(settings: ConnectionSettings, prompt: str) -> Turn:
    turn = Turn(prompt, [], "service-pro", False, request_body={"model": "service-pro", "input": prompt})

    async def run() -> None:
        async with ServiceClient(settings, "") as client:
            await TurnRun(turn, lambda _text: None, lambda: None).run(client)

    asyncio.run(run())
    return turn


def test_a_long_answer_behind_a_buffering_proxy_completes_and_says_it_was_held_back(
    slow_sandbox: SandboxServer, pki: Pki
) -> None:
    """mitmproxy's default: the head comes only with the whole answer (~4 s here), past a 1 s request
    deadline; the turn completes and its figures say the proxy held it back instead of a pace."""
    with mitmproxy(upstream_ca=pki.ca) as proxy:
        settings = ConnectionSettings(
            slow_sandbox.base_url,
            api_key=key_of(slow_sandbox),
            proxy=proxy.url,
            ca_bundle=proxy.ca_file,
            request_deadline=1.0,
        )
        turn = run_turn(settings, "Write 100 words")
    assert turn.status == TurnStatus.COMPLETED, turn.error
    assert turn.figures.time_to_first_token is not None and turn.figures.time_to_first_token > 1.0
    assert turn.figures.held_back and turn.figures.tokens_per_second is None
    assert turn.proxy == proxy.url.removeprefix("http://")  # the waiting line names it


def test_through_a_streaming_proxy_the_answer_streams(slow_sandbox: SandboxServer, pki: Pki) -> None:
    with mitmproxy(upstream_ca=pki.ca, streaming=True) as proxy:
        settings = ConnectionSettings(
            slow_sandbox.base_url, api_key=key_of(slow_sandbox), proxy=proxy.url, ca_bundle=proxy.ca_file
        )
        turn = run_turn(settings, "Write 40 words")
    assert turn.status == TurnStatus.COMPLETED and not turn.figures.held_back
    assert turn.figures.tokens_per_second is not None


def test_an_intercepting_proxy_s_certificate_is_named(https_sandbox: SandboxServer, pki: Pki) -> None:
    with mitmproxy(upstream_ca=pki.ca) as proxy:
        for bundle in (None, pki.ca):  # no bundle, or the server's own CA: the proxy's certificate fails
            with pytest.raises(TlsFailed) as raised:
                models(ConnectionSettings(https_sandbox.base_url, proxy=proxy.url, ca_bundle=bundle))
            text = str(raised.value)
            assert f"through the proxy {proxy.url.removeprefix('http://')}" in text, text
            assert "issued by “O=mitmproxy,CN=mitmproxy”" in text and "proxy's CA certificate" in text
        assert "service-pro" in models(
            ConnectionSettings(
                https_sandbox.base_url,
                api_key=key_of(https_sandbox),
                proxy=proxy.url,
                ca_bundle=proxy.ca_file,
            )
        )


def test_mutual_tls_through_an_intercepting_proxy_is_said(mtls_sandbox: SandboxServer, pki: Pki) -> None:
    with mitmproxy(upstream_ca=pki.ca) as proxy:
        settings = ConnectionSettings(
            mtls_sandbox.base_url,
            api_key=key_of(mtls_sandbox),
            proxy=proxy.url,
            ca_bundle=proxy.ca_file,
            client_cert=pki.client,
        )
        with pytest.raises(ClientCertificateProblem, match="cannot work through an intercepting proxy"):
            models(settings)


def test_no_client_certificate_direct_is_said(mtls_sandbox: SandboxServer, pki: Pki) -> None:
    with pytest.raises(ClientCertificateProblem, match="asks for a client certificate"):
        models(ConnectionSettings(mtls_sandbox.base_url, api_key=key_of(mtls_sandbox), ca_bundle=pki.ca))
    settings = ConnectionSettings(
        mtls_sandbox.base_url, api_key=key_of(mtls_sandbox), ca_bundle=pki.ca, client_cert=pki.client
    )
    assert "service-pro" in models(settings)


@pytest.mark.parametrize("kind", ["mitmproxy", "squid"])
def test_a_proxy_that_asks_for_credentials(kind: str, https_sandbox: SandboxServer, pki: Pki) -> None:
    auth = f"{PROXY_USER}:{PROXY_PASSWORD}"
    proxy_cm = mitmproxy(upstream_ca=pki.ca, auth=auth) if kind == "mitmproxy" else squid()
    with proxy_cm as proxy:
        bundle = proxy.ca_file or pki.ca
        with pytest.raises(ProxyAuthRequired, match="asks for credentials"):
            models(ConnectionSettings(https_sandbox.base_url, proxy=proxy.url, ca_bundle=bundle))
        with pytest.raises(ProxyAuthRequired, match="were refused"):
            models(
                ConnectionSettings(
                    https_sandbox.base_url, proxy=proxy.with_credentials(password="nope"), ca_bundle=bundle
                )
            )
        settings = ConnectionSettings(
            https_sandbox.base_url,
            api_key=key_of(https_sandbox),
            proxy=proxy.with_credentials(),
            ca_bundle=bundle,
        )
        assert "service-pro" in models(settings)


def test_squid_refusing_a_connect_is_not_the_allowlist(https_sandbox: SandboxServer, pki: Pki) -> None:
    with squid(allowed_ports="443") as proxy:
        settings = ConnectionSettings(
            https_sandbox.base_url,
            api_key=key_of(https_sandbox),
            proxy=proxy.with_credentials(),
            ca_bundle=pki.ca,
        )
        with pytest.raises(ProxyRefused, match="not the service's IP allowlist"):
            models(settings)


def test_the_echo_lookup_goes_through_the_proxy_with_the_profile_s_ca_bundle(pki: Pki) -> None:
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pki.server_cert, pki.server_key)
    with echo_server("127.0.0.1", tls=context) as url, mitmproxy(upstream_ca=pki.ca) as proxy:
        answer = asyncio.run(lookup([url], 4, proxy=proxy.url, ca_bundle=proxy.ca_file))
        assert answer.address == "127.0.0.1"
        with pytest.raises(EchoFailed, match=r"certificate is not trusted \(through the proxy"):
            asyncio.run(lookup([url], 4, proxy=proxy.url))


def test_get_code_s_curl_runs_as_is_through_squid(
    https_sandbox: SandboxServer, pki: Pki, tmp_path: Path
) -> None:
    """The snippet carries the proxy, its user and the CA bundle; the password and key come from the
    environment, as a person's shell has them."""
    with squid() as proxy:
        network = SnippetNetwork(
            proxy=proxy.url.replace("//", f"//{PROXY_USER}@"),
            proxy_password_env="SERVICE_PROXY_PASSWORD",
            ca_bundle=str(pki.ca),
        )
        body = {"model": "service-pro", "input": "Hello"}
        curl = all_snippets(https_sandbox.base_url, body, "SERVICE_API_KEY", network)["curl"]
        assert PROXY_PASSWORD not in curl and key_of(https_sandbox) not in curl
        environment = {
            **os.environ,
            "SERVICE_API_KEY": key_of(https_sandbox),
            "SERVICE_PROXY_PASSWORD": PROXY_PASSWORD,
        }
        done = subprocess.run(
            ["bash", "-c", curl + " --silent --show-error --fail"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 0, done.stderr
    assert '"status":"completed"' in done.stdout.replace(" ", "")
