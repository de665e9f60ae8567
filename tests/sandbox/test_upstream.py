"""The upstream engine fronting another Responses API server (here, a second sandbox).

The Chat Completions side meets a real llama.cpp server in tests/peers (marker `peers`).
"""

from __future__ import annotations

import json

import openai

from tests.conftest import Sandbox, SandboxFactory
from tests.sandbox.test_responses import output_text, sse_events


def test_forwards_create_and_stream_with_model_mapping(sandbox_factory: SandboxFactory) -> None:
    upstream: Sandbox = sandbox_factory()
    front: Sandbox = sandbox_factory(
        engine="upstream",
        upstream_url=upstream.url,
        upstream_key=upstream.creds.api_key,
        model_map={"service-pro": "service-ultra"},
        delta_event="text",
    )
    with front.api() as client:
        body = client.post("/responses", json={"model": "service-pro", "input": "Hello upstream"}).json()
        streamed = client.post("/responses", json={"model": "service-pro", "input": "Hi", "stream": True})
        bad = client.post("/responses", json={"model": "service-pro", "input": "x", "temperature": 9})
    assert "(service-ultra)" in output_text(body) and body["model"] == "service-pro"
    events = sse_events(streamed.text)
    assert events[-1]["type"] == "response.completed"
    assert any(event["type"] == "response.text.delta" for event in events)  # named as this sandbox was told
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    assert "[DONE]" not in streamed.text
    assert bad.status_code == 400 and json.loads(bad.text)["error"]["param"] == "temperature"


def test_chains_with_the_sandbox_keeping_the_history(sandbox_factory: SandboxFactory) -> None:
    upstream: Sandbox = sandbox_factory()
    front: Sandbox = sandbox_factory(
        engine="upstream", upstream_url=upstream.url, upstream_key=upstream.creds.api_key
    )
    with front.api() as client:
        first = client.post("/responses", json={"model": "service-pro", "input": "Remember: teal"}).json()
        second = client.post(
            "/responses",
            json={"model": "service-pro", "input": "And now?", "previous_response_id": first["id"]},
        )
    assert second.status_code == 200, second.text
    assert second.json()["previous_response_id"] == first["id"]


def test_official_client_reads_a_well_formed_stream_through_the_engine(
    sandbox_factory: SandboxFactory,
) -> None:
    upstream: Sandbox = sandbox_factory()
    front: Sandbox = sandbox_factory(
        engine="upstream", upstream_url=upstream.url, upstream_key=upstream.creds.api_key
    )
    with openai.OpenAI(base_url=front.url, api_key=front.creds.api_key, max_retries=0) as client:
        stream = client.responses.create(model="service-pro", input="Hello through the engine", stream=True)
        with stream:
            events = list(stream)
    assert events[-1].type == "response.completed" and events[-1].response.output_text
    assert "".join(event.delta for event in events if event.type == "response.output_text.delta")


def test_unreachable_upstream_is_a_clear_error(sandbox_factory: SandboxFactory) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url="http://127.0.0.1:9/v1")
    with front.api() as client:
        response = client.post("/responses", json={"model": "service-pro", "input": "x"})
    assert response.status_code == 502 and response.json()["error"]["code"] == "upstream_unreachable"


def test_an_upstream_without_either_api_is_named_with_what_it_lacks(sandbox_factory: SandboxFactory) -> None:
    upstream: Sandbox = sandbox_factory()
    nowhere = upstream.url.removesuffix("/v1") + "/nothing/v1"
    front: Sandbox = sandbox_factory(
        engine="upstream", upstream_url=nowhere, upstream_key=upstream.creds.api_key
    )
    with front.api() as client:
        response = client.post("/responses", json={"model": "service-pro", "input": "x"})
    error = response.json()["error"]
    assert response.status_code == 502 and error["code"] == "upstream_unsupported"
    assert nowhere in error["message"] and "Chat Completions" in error["message"]
    assert "Not Found" not in response.text.removeprefix(error["message"])
