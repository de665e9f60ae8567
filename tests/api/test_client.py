"""The API client against the sandbox as a real server, and raw peers for broken servers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.api import (
    ApiError,
    ConnectionFailed,
    ConnectionSettings,
    InvalidResponse,
    IpNotAllowed,
    RateLimited,
    ServiceClient,
    StreamError,
    TextDeltaEvent,
    TlsFailed,
    Unauthorized,
    collect,
)
from tests.api.servers import raw_server, sse, sse_head
from tests.conftest import Sandbox, SandboxFactory

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def client_for(sandbox: Sandbox, **overrides: object) -> ServiceClient:
    settings = ConnectionSettings(
        base_url=sandbox.url, api_key=sandbox.creds.api_key, admin_key=sandbox.creds.admin_key, max_retries=0
    )
    for name, value in overrides.items():
        setattr(settings, name, value)
    return ServiceClient(settings, sandbox.creds.org_id)


async def test_create_and_stream(sandbox: Sandbox) -> None:
    async with client_for(sandbox) as client:
        created = await client.responses.create({"model": "service-pro", "input": "Hello"})
        stream = client.responses.stream({"model": "service-pro", "input": "Hello"})
        final, text = await collect(stream)
        assert created.status == final.status == "completed" and created.output_text
        assert "Hello" in text and stream.state.headers
        assert stream.response is not None and stream.response.is_closed


async def test_leaving_the_block_closes_the_client(sandbox: Sandbox) -> None:
    async with client_for(sandbox) as client:
        assert await client.models()
    with pytest.raises(RuntimeError, match="closed"):  # httpx's words: its pool is closed
        await client.models()


async def test_a_stream_says_when_its_request_is_written_before_the_answer_comes(sandbox: Sandbox) -> None:
    """The Playground builds a sent turn's view while the server works: `on_sent` comes once the body is
    written, before the answer's head."""
    async with client_for(sandbox) as client:
        said: list[str] = []
        stream = client.responses.stream(
            {"model": "service-pro", "input": "Hello"}, lambda: said.append("written")
        )
        async with stream:
            said.append("answered")
            async for _ in stream:
                pass
        assert said == ["written", "answered"] and stream.state.finished


async def test_a_short_body_is_encoded_on_the_loop_and_a_long_one_on_a_thread(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    threaded: list[int] = []
    to_thread = asyncio.to_thread

    async def counted(function: Any, /, *args: Any) -> Any:
        threaded.append(len(args))
        return await to_thread(function, *args)

    monkeypatch.setattr("app.api.transport.asyncio.to_thread", counted)
    async with client_for(sandbox) as client:
        final, _ = await collect(client.responses.stream({"model": "service-pro", "input": "Hello"}))
        assert final.status == "completed" and threaded == []
        long_input = "word " * 20_000  # 100,000 characters: its json.dumps would hold the window's loop up
        final, _ = await collect(client.responses.stream({"model": "service-pro", "input": long_input}))
        assert final.status == "completed" and threaded == [1]


@pytest.mark.parametrize("delta_event", ["output_text", "text"])
async def test_both_delta_event_names(sandbox_factory: SandboxFactory, delta_event: str) -> None:
    sandbox = sandbox_factory(delta_event=delta_event)
    async with client_for(sandbox) as client:
        async with client.responses.stream({"model": "service-pro", "input": "Hi"}) as stream:
            deltas = [event.delta async for event in stream if isinstance(event, TextDeltaEvent)]
        final = stream.state.response
        assert final is not None and "".join(deltas) == final.output_text != ""


async def test_unauthorized(sandbox: Sandbox) -> None:
    async with client_for(sandbox, api_key="sk-wrong") as client:
        with pytest.raises(Unauthorized) as caught:
            await client.responses.create({"model": "service-pro", "input": "x"})
        assert caught.value.code == "invalid_api_key"


async def test_ip_not_allowed_carries_source_ip(sandbox: Sandbox) -> None:
    async with client_for(sandbox, forwarded_for="198.51.100.7") as client:
        await client.allowlists.add("203.0.113.0/24")
        await client.allowlists.set_enabled(True, force=True)
        with pytest.raises(IpNotAllowed) as caught:
            await client.responses.create({"model": "service-pro", "input": "x"})
        assert caught.value.source_ip == "198.51.100.7"
        with pytest.raises(IpNotAllowed):
            async with client.responses.stream({"model": "service-pro", "input": "x"}):
                pass  # the refusal is the answer's head: entering the block raises it


async def test_a_played_ip_goes_with_the_api_key_s_requests_only(sandbox: Sandbox) -> None:
    """Issue 38: the Play IP is the Playground's (the API key's requests); the admin key's keep the console's
    own address, so an unlisted Play IP never refuses the Security tab's reads."""
    async with client_for(sandbox, forwarded_for="198.51.100.7", played_ip="203.0.113.9") as client:
        await client.allowlists.add("198.51.100.0/24")
        listed = await client.allowlists.set_enabled(True)
        assert listed.source_ip == "198.51.100.7"  # the guard saw the console's own address
        with pytest.raises(IpNotAllowed) as caught:
            await client.responses.create({"model": "service-pro", "input": "x"})
        assert caught.value.source_ip == "203.0.113.9"
        assert (await client.allowlists.get()).enabled  # and the admin key is still answered
        client.set_played_ip(None)
        assert (await client.responses.create({"model": "service-pro", "input": "x"})).status == "completed"


async def test_allowlist_calls(sandbox: Sandbox) -> None:
    async with client_for(sandbox, forwarded_for="198.51.100.7") as client:
        entry = await client.allowlists.add("198.51.100.0/24", "office")
        listed = await client.allowlists.get()
        assert listed.entries == (entry,) and listed.source_ip == "198.51.100.7"
        assert entry.cidr == "198.51.100.0/24" and entry.description == "office"
        assert (await client.allowlists.set_enabled(True)).enabled is True
        project = (await client.allowlists.projects())[0].id
        assert (await client.allowlists.get(project)).scope == "project"
        assert (await client.allowlists.remove(entry.id, force=True)).deleted is True


async def test_rate_limited_carries_retry_after(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(rate_limit_per_minute=1)
    async with client_for(sandbox) as client:
        await client.models()
        with pytest.raises(RateLimited) as caught:
            await client.models()
        assert caught.value.retry_after and caught.value.retry_after > 0


async def test_retries_honour_retry_after() -> None:
    # A mock peer: the sandbox's Retry-After is up to a minute, too long for a test.
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(asyncio.get_running_loop().time())
        if len(calls) == 1:
            return httpx.Response(
                429,
                headers={"retry-after": "0.2"},
                json={
                    "error": {"message": "slow down", "type": "rate_limit_error", "code": None, "param": None}
                },
            )
        return httpx.Response(200, json={"object": "list", "data": [{"id": "service-pro"}]})

    settings = ConnectionSettings(base_url="http://mock.test/v1", api_key="k", max_retries=2)
    async with ServiceClient(
        settings, http=httpx.AsyncClient(transport=httpx.MockTransport(handler))
    ) as client:
        assert await client.models() == ["service-pro"]
        assert len(calls) == 2 and calls[1] - calls[0] >= 0.19


async def test_server_down_is_connection_failed() -> None:
    async with ServiceClient(
        ConnectionSettings(base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0)
    ) as client:
        with pytest.raises(ConnectionFailed, match="Cannot reach"):
            await client.models()


def test_not_a_url_is_a_clear_error() -> None:
    for url in ("not a url", "ftp://host/v1", "http://", "localhost:8080"):
        with pytest.raises(ApiError, match="not a URL"):
            ServiceClient(ConnectionSettings(base_url=url))


async def test_html_answer_is_invalid_response() -> None:
    """A web page with 200 is a wrong base URL; with an error status it is that status (see test_edges)."""
    page = b"<html><body>Welcome</body></html>"
    reply = b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: %d\r\n\r\n%s" % (len(page), page)
    with raw_server(reply) as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            with pytest.raises(InvalidResponse, match="web page"):
                await client.models()


async def test_dropped_stream_keeps_partial_text() -> None:
    delta = json.dumps(
        {"type": "response.output_text.delta", "delta": "Partial answer", "sequence_number": 0}
    )
    reply = sse_head() + sse("response.output_text.delta", delta)  # then the server hangs up
    with raw_server(reply) as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            seen: list[str] = []
            with pytest.raises(ConnectionFailed):
                async with client.responses.stream({"model": "m", "input": "x"}) as stream:
                    async for event in stream:
                        seen += [event.delta] if isinstance(event, TextDeltaEvent) else []
            assert seen == ["Partial answer"] and not stream.state.finished
            assert stream.response is not None and stream.response.is_closed


async def test_malformed_event_and_error_event() -> None:
    with raw_server(sse_head() + sse("response.created", "{not json")) as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            with pytest.raises(InvalidResponse, match="malformed"):
                await collect(client.responses.stream({"model": "m", "input": "x"}))
    error = json.dumps({"type": "error", "code": "server_error", "message": "model crashed"})
    with raw_server(sse_head() + sse("error", error)) as url:
        async with ServiceClient(ConnectionSettings(base_url=url, api_key="k", max_retries=0)) as client:
            with pytest.raises(StreamError, match="model crashed"):
                await collect(client.responses.stream({"model": "m", "input": "x"}))


async def test_cancel_mid_stream_releases_the_connection(sandbox_factory: SandboxFactory) -> None:
    sandbox = sandbox_factory(stream_delay_ms=5)
    async with client_for(sandbox) as client:
        stream = client.responses.stream({"model": "service-pro", "input": "Write 2000 words"})
        first_delta = asyncio.Event()

        async def consume() -> None:
            async with stream:
                async for event in stream:
                    if isinstance(event, TextDeltaEvent):
                        first_delta.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first_delta.wait(), 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert stream.response is not None and stream.response.is_closed
        assert not stream.state.finished
        assert await client.models()  # the client still works


async def test_aclose_after_leaving_the_loop_closes_the_response_at_once(sandbox: Sandbox) -> None:
    async with client_for(sandbox) as client:
        async with client.responses.stream({"model": "service-pro", "input": "Write 50000 words"}) as stream:
            async for event in stream:
                if isinstance(event, TextDeltaEvent):
                    break  # a loop left early: leaving the block closes the response, not the collector later
            assert stream.response is not None and not stream.response.is_closed
        assert stream.response.is_closed
        assert await client.models()


async def test_tls_unknown_ca_and_mutual_tls(tmp_path: Path) -> None:
    trustme = pytest.importorskip("trustme")
    from app.sandbox import SandboxConfig, SandboxServer
    from app.sandbox.server import TlsOptions

    ca = trustme.CA()
    server_cert = ca.issue_cert("127.0.0.1")
    ca_file, cert, key, client_pem = (tmp_path / n for n in ("ca.pem", "s.pem", "s.key", "c.pem"))
    ca.cert_pem.write_to_path(str(ca_file))
    server_cert.cert_chain_pems[0].write_to_path(str(cert))
    server_cert.private_key_pem.write_to_path(str(key))
    ca.issue_cert("console").private_key_and_cert_chain_pem.write_to_path(str(client_pem))
    with SandboxServer(SandboxConfig(data_dir=tmp_path / "d"), tls=TlsOptions(cert, key, ca_file)) as server:
        assert server.credentials is not None
        base: dict[str, Any] = {
            "base_url": server.base_url,
            "api_key": server.credentials.api_key,
            "max_retries": 0,
        }
        async with ServiceClient(ConnectionSettings(**base)) as unknown:
            with pytest.raises(TlsFailed, match="not trusted"):
                await unknown.models()
        async with ServiceClient(ConnectionSettings(**base, ca_bundle=ca_file)) as no_cert:
            with pytest.raises(ConnectionFailed):
                await no_cert.models()
        async with ServiceClient(
            ConnectionSettings(**base, ca_bundle=ca_file, client_cert=client_pem)
        ) as good:
            assert "service-pro" in await good.models()
    with pytest.raises(TlsFailed, match="missing"):
        ServiceClient(ConnectionSettings(base_url="https://x/v1", ca_bundle=tmp_path / "nope.pem"))


async def test_typed_answers_from_the_sandbox(sandbox: Sandbox) -> None:
    from app.api import OutputItemEvent, ResponseEvent, WebSearchCall

    async with client_for(sandbox) as client:
        searched = await client.responses.create(
            {
                "model": "service-pro",
                "input": "How do CIDR ranges work?",
                "tools": [{"type": "web_search_preview"}],
            }
        )
        assert (
            searched.search_queries
            and searched.citations
            and searched.citations[0].url.startswith("https://")
        )
        assert searched.usage is not None and searched.usage.total_tokens > 0
        assert (await client.responses.retrieve(searched.id)).output_text == searched.output_text
        thought = await client.responses.create({"model": "service-think", "input": "Why is the sky blue?"})
        assert thought.reasoning_summary
        stream = client.responses.stream(
            {"model": "service-pro", "input": "What is CIDR?", "tools": [{"type": "web_search_preview"}]}
        )
        async with stream:
            events = [event async for event in stream]
        assert isinstance(events[0], ResponseEvent) and events[0].type == "response.created"
        assert any(isinstance(e, OutputItemEvent) and isinstance(e.item, WebSearchCall) for e in events)
        assert isinstance(events[-1], ResponseEvent) and events[-1].is_final
        text = "".join(event.delta for event in events if isinstance(event, TextDeltaEvent))
        assert text == events[-1].response.output_text
