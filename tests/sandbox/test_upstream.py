"""The upstream engine forwards to another Responses API server (here, a second sandbox)."""

from __future__ import annotations

import json

from tests.conftest import Sandbox
from tests.sandbox.test_responses import output_text, sse_events


def test_forwards_create_and_stream_with_model_mapping(sandbox_factory) -> None:
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
    assert any(event["type"] == "response.text.delta" for event in events)  # renamed as this sandbox was told
    assert bad.status_code == 400 and json.loads(bad.text)["error"]["param"] == "temperature"


def test_unreachable_upstream_is_a_clear_error(sandbox_factory) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url="http://127.0.0.1:9/v1")
    with front.api() as client:
        response = client.post("/responses", json={"model": "service-pro", "input": "x"})
    assert response.status_code == 502 and response.json()["error"]["code"] == "upstream_unreachable"
