"""The console's streams through real proxies against the same turns direct, in one run (the sandbox over
HTTPS in its own process, mitmproxy re-signing TLS with its own CA).

1. Behind a buffering proxy (mitmproxy's default), an answer that takes ~60 s completes (the 30 s request
   deadline does not cut it; the first-byte wait is its own), and its figures say it was held back.
   Baseline: the same turn direct.
2. Stop behind the buffering proxy, while the console waits for the held-back head: how long until the
   turn has ended (goal: under 100 ms). Baseline: Stop on the same turn direct, mid-stream.
3. Through a streaming intercepting proxy (stream_large_bodies=1), time to first token against the same
   turn direct (median of alternating rounds; goal: within +50 ms).

Run: python -m tests.perf.bench_proxy [seconds] [rounds]   (needs mitmproxy: bash packaging/proxies.sh)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from app.api.client import ServiceClient
from app.api.transport import ConnectionSettings
from app.core.playground.turn_runner import TurnRun
from app.core.playground.turns import Turn
from tests.perf.tiny import size
from tests.proxies.servers import make_pki, mitmproxy
from tests.sandbox_process import spawn_sandbox

DELAY_MS = 100  # one delta every 100 ms: N seconds of answer is N*10 words


def turn_for(words: int) -> Turn:
    prompt = f"Write {words} words"
    return Turn(prompt, [], "service-pro", False, request_body={"model": "service-pro", "input": prompt})


async def run_turn(settings: ConnectionSettings, words: int, client: ServiceClient | None = None) -> Turn:
    """One turn as the Playground runs it; on `client` when given (the console keeps one per profile, so
    its connection, and the proxy's tunnel, are reused from turn to turn)."""
    if client is None:
        async with ServiceClient(settings, "") as own:
            return await run_turn(settings, words, own)
    turn = turn_for(words)
    await TurnRun(turn, lambda _text: None, lambda: None).run(client)
    return turn


async def stop_after(settings: ConnectionSettings, words: int, after: float) -> float:
    """Seconds from Stop (a cancel, as the Playground's Stop does) until the turn's task has ended."""
    turn = turn_for(words)
    async with ServiceClient(settings, "") as client:
        task = asyncio.ensure_future(TurnRun(turn, lambda _text: None, lambda: None).run(client))
        await asyncio.sleep(after)
        stopped = time.perf_counter()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        return time.perf_counter() - stopped


def say(label: str, turn: Turn) -> None:
    figures = turn.figures
    pace = "held back" if figures.held_back else f"{figures.tokens_per_second or 0:,.0f} tok/s"
    print(
        f"  {label:<28} {turn.status:<10} first token {(figures.time_to_first_token or 0) * 1000:>8,.0f} ms"
        f"  total {figures.duration or 0:6.1f} s  {pace}  {turn.error}"
    )


async def main(seconds: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        pki = make_pki(folder)
        tls = ["--tls-cert", str(pki.server_cert), "--tls-key", str(pki.server_key)]
        slow, slow_creds = spawn_sandbox(folder / "slow", *tls, "--stream-delay-ms", str(DELAY_MS))
        fast, fast_creds = spawn_sandbox(folder / "fast", *tls, "--stream-delay-ms", "5")
        try:
            await _long_answer(slow_creds["base_url"], slow_creds["api_key"], pki.ca, seconds)
            await _ttft(fast_creds["base_url"], fast_creds["api_key"], pki.ca, rounds)
        finally:
            for process in (slow, fast):
                process.terminate()
                process.wait(timeout=10)


async def _long_answer(url: str, key: str, ca: Path, seconds: int) -> None:
    words = seconds * 1000 // DELAY_MS
    print(f"1. An answer of ~{seconds} s ({words} words at {DELAY_MS} ms a word), request deadline 30 s:")
    direct = ConnectionSettings(url, api_key=key, ca_bundle=ca)
    say("direct", await run_turn(direct, words))
    with mitmproxy(upstream_ca=ca) as proxy:
        through = ConnectionSettings(url, api_key=key, proxy=proxy.url, ca_bundle=proxy.ca_file)
        say("buffering mitmproxy", await run_turn(through, words))
        print("2. Stop, 2 s into the same answer:")
        print(f"  {'direct (mid-stream)':<28} {await stop_after(direct, words, 2.0) * 1000:6.1f} ms")
        waited = await stop_after(through, words, 2.0)
        print(f"  {'buffering mitmproxy (head)':<28} {waited * 1000:6.1f} ms   goal < 100 ms")


async def _ttft(url: str, key: str, ca: Path, rounds: int) -> None:
    print(
        f"3. Time to first token, {rounds} alternating rounds (median), one client per path as the console has:"
    )
    direct = ConnectionSettings(url, api_key=key, ca_bundle=ca)
    with mitmproxy(upstream_ca=ca, streaming=True) as proxy:
        through = ConnectionSettings(url, api_key=key, proxy=proxy.url, ca_bundle=proxy.ca_file)
        times: dict[str, list[float]] = {"direct": [], "streaming mitmproxy": []}
        first: dict[str, float] = {}
        async with ServiceClient(direct, "") as plain, ServiceClient(through, "") as proxied:
            clients = {"direct": plain, "streaming mitmproxy": proxied}
            for label, client in clients.items():  # the first turn opens the connection (and the tunnel)
                first[label] = (await run_turn(direct, 40, client)).figures.time_to_first_token or 0.0
            for _ in range(rounds):
                for label, client in clients.items():
                    turn = await run_turn(direct, 40, client)
                    times[label].append(turn.figures.time_to_first_token or 0.0)
    for label, seconds in first.items():
        print(f"  {label:<28} {seconds * 1000:8.1f} ms   first turn (a new connection, and tunnel)")
    medians = {label: statistics.median(values) * 1000 for label, values in times.items()}
    for label, median in medians.items():
        print(f"  {label:<28} {median:8.1f} ms")
    print(f"  difference {medians['streaming mitmproxy'] - medians['direct']:+.1f} ms   goal <= +50 ms")


if __name__ == "__main__":
    arguments = [int(value) for value in sys.argv[1:]]
    asyncio.run(main(*(arguments + size([60, 15], [3, 1])[len(arguments) :])))  # a Stop comes 2 s in
