"""The console's WebSocket mode against its HTTP requests: a 20-call tool loop run by the Playground's own
function loop (app/core/playground: each turn calls get_weather, the saved output goes back, the model
answers), against a sandbox in its own process (simulated engine), the same conversation both ways.

Over HTTP each request is a streamed POST on the client's keep-alive pool; in WebSocket mode every request of
the conversation goes over one socket. Both chain on the server (`previous_response_id`), as the Playground
does. Rounds interleaved, medians. Goal: the socket at most 0.8x the HTTP time.
Run: python -m tests.perf.bench_console_socket   (prints both and the ratio; not a timed test)
"""

from __future__ import annotations

import asyncio
import signal
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

from app.api import ConnectionSettings, ServiceClient
from app.core.playground.function_loop import run_turn
from app.core.playground.functions import FunctionDefinition, ToolSettings
from app.core.playground.socket_channel import SocketChannel, whole_history
from app.core.playground.turn_runner import TurnRun
from app.core.playground.turns import RequestOptions, Turn, TurnStatus, build_request
from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

CALLS = size(20, 2)
ROUNDS = size(7, 1)
WEATHER = FunctionDefinition(
    "get_weather",
    "Get the current weather for a location",
    {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
    mock_output='{"temperature": 18, "sky": "clear"}',
)
OPTIONS = RequestOptions("service-pro", tools=ToolSettings(functions=(WEATHER,)))


async def tool_loop(client: ServiceClient, channel: SocketChannel | None) -> list[Turn]:
    """CALLS turns of one conversation, each a call answered by its saved output and then the answer."""
    turns: list[Turn] = []
    for number in range(CALLS):
        prompt = f"Use get_weather: what's the weather like in city {number}?"
        plan = build_request(turns, prompt, [], OPTIONS)
        turn = Turn(prompt, [], OPTIONS.model, plan.chained, request_body=plan.body, tools=OPTIONS.tools)
        turns.append(turn)
        run = TurnRun(turn, lambda _chunk: None, lambda: None)
        run.channel = channel
        earlier = turns[:-1]
        run.unchained = partial(whole_history, earlier, turn)
        await run_turn(run, client, partial(list, earlier))
        assert turn.status == TurnStatus.COMPLETED and turn.calls and turn.rounds == 2, (
            turn.status,
            turn.error,
        )
    return turns


async def measure(base_url: str, key: str) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"HTTP": [], "WebSocket": []}
    settings = ConnectionSettings(base_url=base_url, api_key=key, forwarded_for="127.0.0.1")
    async with ServiceClient(settings) as client:
        await tool_loop(client, None)  # warm-up: the pool's connection, the server's caches
        for _ in range(ROUNDS):
            for name in times:
                channel = SocketChannel() if name == "WebSocket" else None
                started = time.perf_counter()
                await tool_loop(client, channel)
                times[name].append(time.perf_counter() - started)
                if channel is not None:
                    assert channel.in_use, channel.fallback
                    await channel.aclose()
    return times


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        process, creds = spawn_sandbox(Path(folder), "--rate-limit", "1000000")  # the loop, not 429s
        try:
            times = asyncio.run(measure(creds["base_url"], creds["api_key"]))
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)
            if process.stdout:
                process.stdout.close()
    http, socket = statistics.median(times["HTTP"]), statistics.median(times["WebSocket"])
    print(
        f"{CALLS}-call tool loop through the Playground's function loop, median of {ROUNDS}: "
        f"HTTP {http * 1000:.0f} ms, WebSocket {socket * 1000:.0f} ms"
    )
    print(f"ratio {socket / http:.2f} (goal at most 0.80)")


if __name__ == "__main__":
    main()
