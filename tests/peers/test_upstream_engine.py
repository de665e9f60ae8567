"""The sandbox's upstream engine in front of real servers: llama.cpp's (Chat Completions only) and LiteLLM's.

The official client reads the sandbox's stream; every event is checked against the client's own types.
"""

from __future__ import annotations

import base64
import functools
import io
import json
from typing import TYPE_CHECKING, Any

import httpx
import pydantic
import pytest
from PIL import Image

from app.sandbox.engines.upstream import UpstreamEngine
from tests.conftest import Sandbox, SandboxFactory
from tests.peers.servers import PROXY_KEY, Peer

if TYPE_CHECKING:  # imported where used: collecting these skipped-by-default tests cost ~0.6 CPU-s a worker
    import openai

pytestmark = pytest.mark.peers


@functools.cache
def stream_events() -> pydantic.TypeAdapter[openai.types.responses.ResponseStreamEvent]:
    """The client's own stream-event types; built when a test needs them (~1 CPU-s), not at collection."""
    import openai

    return pydantic.TypeAdapter(openai.types.responses.ResponseStreamEvent)


def sse_events(raw: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in raw.splitlines() if line.startswith("data:")]


def png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), "teal").save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


def slow_client(sandbox: Sandbox) -> httpx.Client:
    """The sandbox's API with room for a small model on a shared CPU."""
    headers = {"authorization": f"Bearer {sandbox.creds.api_key}"}
    return httpx.Client(base_url=sandbox.url, headers=headers, timeout=180)


@pytest.fixture
def front(sandbox_factory: SandboxFactory, llama: Peer) -> Sandbox:
    sandbox: Sandbox = sandbox_factory(engine="upstream", upstream_url=llama.base_url)
    return sandbox


def test_official_client_reads_a_real_streamed_answer(front: Sandbox) -> None:
    import openai

    with openai.OpenAI(base_url=front.url, api_key=front.creds.api_key, max_retries=0, timeout=180) as client:
        stream = client.responses.create(
            model="service-pro", input="Write about the sea.", max_output_tokens=32, stream=True
        )
        with stream:
            events = list(stream)
    deltas = "".join(event.delta for event in events if event.type == "response.output_text.delta")
    assert deltas.strip()
    assert events[-1].type in ("response.completed", "response.incomplete")
    assert events[-1].response.output_text == deltas
    assert [event.sequence_number for event in events] == list(range(len(events)))


def test_every_streamed_event_validates_strictly(front: Sandbox) -> None:
    with slow_client(front) as client:
        raw = client.post(
            "/responses",
            json={"model": "service-pro", "input": "Hello", "max_output_tokens": 24, "stream": True},
        )
    assert "[DONE]" not in raw.text
    for event in sse_events(raw.text):
        stream_events().validate_python(event, strict=True)


def test_history_chain_and_image_reach_llama_cpp(front: Sandbox) -> None:
    with slow_client(front) as client:
        first = client.post(
            "/responses", json={"model": "service-pro", "input": "Name a colour.", "max_output_tokens": 24}
        ).json()
        chained = client.post(
            "/responses",
            json={
                "model": "service-pro",
                "input": "Another one.",
                "previous_response_id": first["id"],
                "max_output_tokens": 24,
            },
        )
        history = [
            {"role": "user", "content": "Name a colour."},
            {"role": "assistant", "content": [{"type": "output_text", "text": "Teal."}]},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {"type": "input_image", "image_url": png_data_url()},
                ],
            },
        ]
        whole = client.post(
            "/responses", json={"model": "service-pro", "input": history, "max_output_tokens": 24}
        )
    assert chained.status_code == 200, chained.text
    assert whole.status_code == 200, whole.text
    assert whole.json()["usage"]["output_tokens"] >= 0


def test_json_schema_output_through_chat_completions(front: Sandbox) -> None:
    # An enum keeps the answer short: llama-cpp-python's grammar sampling is slow on a shared CPU.
    name = {"type": "string", "enum": ["Ada", "Grace"]}
    schema = {"type": "object", "properties": {"name": name}, "required": ["name"]}
    body = {
        "model": "service-pro",
        "input": "Give a name.",
        "max_output_tokens": 48,
        "temperature": 0,
        "text": {"format": {"type": "json_schema", "name": "person", "schema": schema}},
    }
    with slow_client(front) as client:
        answer = client.post("/responses", json=body)
    assert answer.status_code == 200, answer.text
    text = answer.json()["output"][-1]["content"][0]["text"]
    assert json.loads(text)["name"] in ("Ada", "Grace")


def test_the_liteLLM_proxy_is_spoken_to_in_the_responses_api(
    sandbox_factory: SandboxFactory, proxy: Peer
) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=proxy.base_url, upstream_key=PROXY_KEY)
    with slow_client(front) as client:
        raw = client.post(
            "/responses",
            json={"model": "service-pro", "input": "Hello", "max_output_tokens": 24, "stream": True},
        )
    events = sse_events(raw.text)
    assert events[-1]["type"] in ("response.completed", "response.incomplete"), raw.text[-500:]
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    assert "[DONE]" not in raw.text
    engine = front.server.state.engine
    assert isinstance(engine, UpstreamEngine) and engine._api is not None
    assert engine._api.value == "responses"


def test_a_server_without_the_api_is_named(sandbox_factory: SandboxFactory, llama: Peer) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=llama.base_url, upstream_api="responses")
    with slow_client(front) as client:
        answer = client.post(
            "/responses", json={"model": "service-pro", "input": "x", "max_output_tokens": 16}
        )
    error = answer.json()["error"]
    assert answer.status_code == 502 and llama.base_url in error["message"]
    assert "has no Responses API" in error["message"] and error["code"] == "upstream_unsupported"
    with httpx.Client() as plain:
        assert plain.post(f"{llama.base_url}/responses", json={}).status_code == 404  # what it really lacks


CITY = {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 30}},
    "required": ["city"],
    "additionalProperties": False,
}


def test_an_answer_llama_cpp_cut_at_max_tokens_is_incomplete_with_its_usage(front: Sandbox) -> None:
    with slow_client(front) as client:
        body = {"model": "service-pro", "input": "Tell a long story about the sea.", "max_output_tokens": 16}
        plain = client.post("/responses", json=body).json()
        streamed = sse_events(client.post("/responses", json={**body, "stream": True}).text)
    for response in (plain, streamed[-1]["response"]):
        assert response["status"] == "incomplete", response
        assert response["incomplete_details"] == {"reason": "max_output_tokens"}
        assert 0 < response["usage"]["output_tokens"] <= 16  # llama.cpp's count where it sends one


def test_a_named_function_is_called_through_llama_cpp(front: Sandbox) -> None:
    tool = {"type": "function", "name": "get_weather", "parameters": CITY}
    with slow_client(front) as client:
        response = client.post(
            "/responses",
            json={
                "model": "service-pro",
                "input": "Weather in Oslo?",
                "tools": [tool],
                "tool_choice": {"type": "function", "name": "get_weather"},
                "max_output_tokens": 60,
            },
        ).json()
    calls = [item for item in response["output"] if item["type"] == "function_call"]
    assert calls and calls[0]["name"] == "get_weather", response
    assert isinstance(json.loads(calls[0]["arguments"])["city"], str)


def test_an_answer_the_liteLLM_proxy_cut_is_incomplete(sandbox_factory: SandboxFactory, proxy: Peer) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=proxy.base_url, upstream_key=PROXY_KEY)
    with slow_client(front) as client:
        body = {"model": "service-pro", "input": "Tell a long story about the sea.", "max_output_tokens": 16}
        response = client.post("/responses", json=body).json()
    assert response["status"] == "incomplete" and response["usage"]["output_tokens"] <= 16, response


def test_a_tool_loops_second_round_passes_through_llama_cpp(front: Sandbox) -> None:
    tool = {"type": "function", "name": "get_weather", "parameters": CITY}
    forced = {"type": "function", "name": "get_weather"}
    with slow_client(front) as client:
        body = {"model": "service-pro", "tools": [tool], "max_output_tokens": 60, "temperature": 0}
        first = client.post("/responses", json={**body, "input": "Weather in Oslo?", "tool_choice": forced})
        (call,) = [item for item in first.json()["output"] if item["type"] == "function_call"]
        output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny, 21 C"}
        second = client.post(
            "/responses",
            json={
                **body,
                "input": [output],
                "previous_response_id": first.json()["id"],
                "max_output_tokens": 24,
            },
        )
    assert second.status_code == 200, second.text  # null content here was llama-cpp-python's 500
    assert second.json()["status"] in ("completed", "incomplete"), second.json()


def test_usage_of_a_whole_answer_is_llama_cpps_own(front: Sandbox, llama: Peer) -> None:
    prompt = "Tell a long story about the sea."
    with slow_client(front) as client:
        answer = client.post(
            "/responses", json={"model": "service-pro", "input": prompt, "max_output_tokens": 16}
        ).json()
    with httpx.Client(timeout=180) as plain:
        direct = plain.post(
            f"{llama.base_url}/chat/completions",
            json={"model": "x", "messages": [{"role": "user", "content": prompt}], "max_tokens": 16},
        ).json()
    usage = answer["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (
        direct["usage"]["prompt_tokens"],
        direct["usage"]["completion_tokens"],
    ), (answer, direct)


def test_a_required_tool_choice_llama_cpp_ignores_fails_the_response(front: Sandbox) -> None:
    tool = {"type": "function", "name": "get_weather", "parameters": CITY}
    # A schema's grammar ends the text: offered tools, this small model otherwise writes to the cap.
    answer = {"type": "object", "properties": {"answer": {"enum": ["yes", "no"]}}, "required": ["answer"]}
    body = {
        "model": "service-pro",
        "input": "Is the sea wet?",
        "tools": [tool],
        "tool_choice": "required",
        "text": {"format": {"type": "json_schema", "name": "reply", "schema": answer}},
        "max_output_tokens": 48,
        "temperature": 0,
    }
    with slow_client(front) as client:
        response = client.post("/responses", json=body).json()
    assert response["status"] == "failed", response  # llama-cpp-python answers "required" in text
    assert "tool_choice was 'required'" in response["error"]["message"]


def test_a_call_through_the_liteLLM_proxy_is_whole_for_a_client_that_waits(
    sandbox_factory: SandboxFactory, proxy: Peer
) -> None:
    front: Sandbox = sandbox_factory(engine="upstream", upstream_url=proxy.base_url, upstream_key=PROXY_KEY)
    tool = {"type": "function", "name": "get_weather", "parameters": CITY}
    body = {
        "model": "service-pro",
        "input": "Weather in Oslo?",
        "tools": [tool],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "max_output_tokens": 60,
        "temperature": 0,
    }
    with slow_client(front) as client:
        response = client.post("/responses", json=body).json()
    calls = [item for item in response["output"] if item["type"] == "function_call"]
    assert calls and calls[0]["name"] == "get_weather", response
    assert isinstance(json.loads(calls[0]["arguments"])["city"], str)
