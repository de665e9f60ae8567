"""The upstream engine's cost: a streamed answer through the sandbox against the same request sent straight
to the llama.cpp server (llama-cpp-python's, Gemma 3 270M), in one run.

Figures per path (median of alternating rounds): time to first token, and tokens per second after it (one
upstream chunk is one token; the engine turns each into one delta event). Goal: through >= 0.9x direct
tokens/s, first token <= direct + 30 ms. The sandbox runs in its own process, as the console's would.
Run: python -m tests.perf.bench_upstream [rounds]   (needs the peers: bash packaging/dev.sh test-peers)
"""

from __future__ import annotations

import asyncio
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from httpx_sse import aconnect_sse

from tests.peers.servers import llama_server
from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

PROMPT = "Write a short story about a lighthouse keeper."
TOKENS = size(64, 8)


@dataclass(frozen=True)
class Run:
    first_token: float  # seconds from sending to the first text
    tokens: int
    tokens_per_second: float  # after the first token
    overall: float  # tokens over the whole request: a late first token cannot flatter it


async def _timed(deltas: AsyncIterator[str]) -> Run:
    started = time.perf_counter()
    first = last = 0.0
    count = 0
    async for _ in deltas:
        last = time.perf_counter()
        if count == 0:
            first = last
        count += 1
    rate = (count - 1) / (last - first) if count > 1 and last > first else 0.0
    overall = count / (last - started) if count else 0.0
    return Run(first - started, count, rate, overall)


async def direct(client: httpx.AsyncClient, base: str) -> AsyncIterator[str]:
    body = {
        "model": "gemma",
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": TOKENS,
        "temperature": 0,
        "stream": True,
    }
    async with aconnect_sse(client, "POST", f"{base}/chat/completions", json=body) as source:
        async for event in source.aiter_sse():
            if event.data == "[DONE]":
                return
            choices = event.json().get("choices") or [{}]
            content = (choices[0].get("delta") or {}).get("content")
            if content:
                yield content


async def through(client: httpx.AsyncClient, base: str, key: str) -> AsyncIterator[str]:
    body = {
        "model": "service-pro",
        "input": PROMPT,
        "max_output_tokens": TOKENS,
        "temperature": 0,
        "stream": True,
        "store": False,
    }
    headers = {"authorization": f"Bearer {key}"}
    async with aconnect_sse(client, "POST", f"{base}/responses", json=body, headers=headers) as source:
        async for event in source.aiter_sse():
            if event.event == "response.output_text.delta":
                yield event.json()["delta"]


def _line(name: str, runs: list[Run]) -> tuple[float, float]:
    first = statistics.median(run.first_token for run in runs) * 1000
    rate = statistics.median(run.tokens_per_second for run in runs)
    overall = statistics.median(run.overall for run in runs)
    tokens = statistics.median(run.tokens for run in runs)
    print(
        f"  {name:<28} first token {first:7.1f} ms   {rate:6.1f} tokens/s after it"
        f"   {overall:6.1f} tokens/s overall   ({tokens:.0f} tokens)"
    )
    return first, min(rate, overall)


async def measure(llama_base: str, sandbox_base: str, key: str, rounds: int) -> None:
    straight: list[Run] = []
    engine: list[Run] = []
    async with httpx.AsyncClient(timeout=300) as client:
        await _timed(direct(client, llama_base))  # warm-up: the model's first call loads its caches
        await _timed(through(client, sandbox_base, key))  # and the engine's probe
        for _ in range(rounds):
            straight.append(await _timed(direct(client, llama_base)))
            engine.append(await _timed(through(client, sandbox_base, key)))
    print(f"Streamed answer, {TOKENS} tokens at most, temperature 0, median of {rounds} alternating rounds:")
    direct_first, direct_rate = _line("straight to llama.cpp", straight)
    engine_first, engine_rate = _line("through the upstream engine", engine)
    ratio = engine_rate / direct_rate if direct_rate else 0.0
    extra = engine_first - direct_first
    print(
        f"  tokens/s ratio (the lower of the two rates) {ratio:.2f}x (goal >= 0.9x): {'met' if ratio >= 0.9 else 'NOT met'}"
    )
    print(f"  first token +{extra:.1f} ms (goal <= +30 ms): {'met' if extra <= 30 else 'NOT met'}")


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else size(5, 1)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # so the peers it started are stopped too
    with llama_server() as llama, tempfile.TemporaryDirectory() as folder:
        process, creds = spawn_sandbox(Path(folder), "--engine", "upstream", "--upstream-url", llama.base_url)
        try:
            asyncio.run(measure(llama.base_url, creds["base_url"], creds["api_key"], rounds))
        finally:
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
