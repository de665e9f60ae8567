"""WebSocket mode against HTTP: a 20-call tool loop on the simulated engine, `store: false` both ways.

Over HTTP (streamed) the client sends the whole history each turn, as a store-less client does; over one
socket it chains by `previous_response_id` to the socket's last response. Goal: the socket at most 0.8x the HTTP
time (medians of rounds interleaved). Run: python -m tests.perf.bench_websocket   (not a timed test)
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from app.sandbox.config import SandboxConfig
from app.sandbox.server import SandboxServer
from tests.perf.tiny import size

CALLS = size(20, 2)
ROUNDS = size(5, 1)
TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Get the current weather for a location",
    "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
}
ENDS = {"response.completed", "response.failed", "response.incomplete", "error"}


def over_http(url: str, key: str) -> None:
    """Streamed, as the console and agent clients ask: the same events as over the socket."""
    with httpx.Client(base_url=url, headers={"authorization": f"Bearer {key}"}, timeout=30) as client:

        def create(body: dict[str, Any]) -> dict[str, Any]:
            with client.stream("POST", "/responses", json={**body, "stream": True}) as answer:
                events = [json.loads(line[6:]) for line in answer.iter_lines() if line.startswith("data: ")]
            assert events[-1]["type"] == "response.completed", events[-1]
            response: dict[str, Any] = events[-1]["response"]
            return response

        for turn in range(CALLS):
            asked = {"role": "user", "content": f"What's the weather in city {turn}?"}
            body: dict[str, Any] = {"model": "service-pro", "input": [asked], "tools": [TOOL], "store": False}
            call = create(body)["output"][0]
            output = {"type": "function_call_output", "call_id": call["call_id"], "output": "Sunny"}
            create({**body, "input": [asked, call, output]})


def over_socket(url: str, key: str) -> None:
    address = url.replace("http://", "ws://", 1) + "/responses"
    with connect(address, additional_headers={"authorization": f"Bearer {key}"}) as socket:

        def create(**body: Any) -> dict[str, Any]:
            socket.send(
                json.dumps({"type": "response.create", "model": "service-pro", "store": False, **body})
            )
            while (event := json.loads(socket.recv()))["type"] not in ENDS:
                pass
            assert event["type"] == "response.completed", event
            response: dict[str, Any] = event["response"]
            return response

        for turn in range(CALLS):
            first = create(input=f"What's the weather in city {turn}?", tools=[TOOL])
            output = {
                "type": "function_call_output",
                "call_id": first["output"][0]["call_id"],
                "output": "Sunny",
            }
            create(previous_response_id=first["id"], input=[output], tools=[TOOL])


def main() -> None:
    times: dict[str, list[float]] = {"HTTP": [], "WebSocket": []}
    loops: dict[str, Callable[[str, str], None]] = {"HTTP": over_http, "WebSocket": over_socket}
    with tempfile.TemporaryDirectory() as folder:
        server = SandboxServer(SandboxConfig(data_dir=Path(folder))).start()
        credentials = server.credentials
        assert credentials is not None
        try:
            for _ in range(ROUNDS):
                for name, loop in loops.items():
                    started = time.perf_counter()
                    loop(server.base_url, credentials.api_key)
                    times[name].append(time.perf_counter() - started)
        finally:
            server.stop()
    http, socket = statistics.median(times["HTTP"]), statistics.median(times["WebSocket"])
    print(
        f"{CALLS}-call tool loop, median of {ROUNDS}: HTTP {http * 1000:.0f} ms, WebSocket {socket * 1000:.0f} ms"
    )
    print(f"ratio {socket / http:.2f} (goal at most 0.80)")


if __name__ == "__main__":
    main()
