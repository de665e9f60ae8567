"""Public IP echo lookups, IPv4 and IPv6 apart, against echo services on the loopback addresses."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.api.echo import EchoFailed, lookup

from .servers import echo_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_each_family_is_asked_over_its_own_family() -> None:
    with echo_server("127.0.0.1") as v4, echo_server("::1") as v6:
        assert (await lookup([v4], 4)).address == "127.0.0.1"
        assert (await lookup([v6], 6)).address == "::1"
        # An IPv6-only service in the IPv4 list cannot be reached over IPv4: no IPv6 answer slips in.
        with pytest.raises(EchoFailed):
            await lookup([v6], 4)


async def test_falls_through_to_the_next_service() -> None:
    with echo_server("127.0.0.1", body="<html>hello</html>") as html, echo_server("127.0.0.1") as good:
        answer = await lookup(["http://127.0.0.1:1/", html, good], 4)
        assert answer.address == "127.0.0.1" and answer.service == "127.0.0.1"


async def test_json_answers_and_wrong_family_answers() -> None:
    with echo_server("127.0.0.1", body='{"ip": "203.0.113.9"}') as json_echo:
        assert (await lookup([json_echo], 4)).address == "203.0.113.9"
    with (
        echo_server("127.0.0.1", body="2001:db8::1") as liar,
        pytest.raises(EchoFailed, match="answered an IPv6 address"),
    ):
        await lookup([liar], 4)


async def test_nothing_set_or_nothing_answering_is_a_clear_error() -> None:
    with pytest.raises(EchoFailed, match="No IPv6 echo service"):
        await lookup([], 6)
    with pytest.raises(EchoFailed, match=r"127\.0\.0\.1: could not connect"):
        await lookup(["http://127.0.0.1:1/"], 4)


async def test_the_lookup_trusts_the_profile_s_ca_bundle_and_goes_through_its_proxy(tmp_path: Path) -> None:
    """Behind an intercepting proxy the echo services' certificates are the proxy's: the profile's CA bundle
    is what makes them trusted, and a lookup without it says the certificate is the problem."""
    import ssl

    import trustme

    from tests.api.loopback_proxy import loopback_proxy

    ca = trustme.CA()
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    with echo_server("127.0.0.1", tls=context) as url:
        answer = await lookup([url], 4, ca_bundle=tmp_path / "ca.pem")
        assert answer.address == "127.0.0.1"
        with pytest.raises(EchoFailed, match="certificate is not trusted"):
            await lookup([url], 4)
        with loopback_proxy() as proxy:
            answer = await lookup([url], 4, proxy=proxy.url, ca_bundle=tmp_path / "ca.pem")
            assert answer.address == "127.0.0.1" and proxy.requests[0].startswith(b"CONNECT 127.0.0.1:")
            with pytest.raises(EchoFailed, match=r"certificate is not trusted \(through the proxy"):
                await lookup([url], 4, proxy=proxy.url)


async def test_the_environment_s_proxy_is_used_as_the_service_s_requests_use_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A proxy from $HTTP_PROXY / $HTTPS_PROXY (none in the profile): the lookup goes through it too."""
    from tests.api.loopback_proxy import loopback_proxy

    for name in ("NO_PROXY", "no_proxy", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    with echo_server("127.0.0.1") as url, loopback_proxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        assert (await lookup([url], 4)).address == "127.0.0.1"
        assert [head.split(b" ")[1].decode() for head in proxy.requests] == [url]  # asked through the proxy
        proxy.requests.clear()
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        assert (await lookup([url], 4)).address == "127.0.0.1"
        assert proxy.requests == []
