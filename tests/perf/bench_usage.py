"""The usage query an admin asks most: 30 days grouped by project and day, over 90 days of minute buckets for
3 projects x 4 models x 5 keys (7.8 million minute rows, and the hour and day rows the flushes add), against
the same query over the hour buckets as the baseline (what it would read without the day rollup). The goal:
at most 100 ms. Also the cost of counting one answer on the request path (a few dict operations), and an
allowed POST /v1/responses (the simulated engine, through the gateway, no HTTP) in server CPU with the
counting on against the same with it off: the goal is at most 5 % more.

Run: python -m tests.perf.bench_usage [rounds]; BENCH_SIZE=tiny: one day of one model and one key for each
project, one round.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from starlette.types import ASGIApp, Message, Scope

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.store.aggregates import Store
from app.sandbox.store.usage import _ADD_USAGE, WIDTHS

TINY = os.environ.get("BENCH_SIZE") == "tiny"
DAYS = 1 if TINY else 90
ROUNDS = 1 if TINY else 5
PROJECTS = [f"proj_{number}" for number in range(3)]
MODELS = [f"service-{name}" for name in ("pro", "ultra", "think", "think-mini")][: 1 if TINY else 4]
KEYS = [f"key_{number:016x}" for number in range(1 if TINY else 5)]
NOW = 1_780_000_000 - 1_780_000_000 % 86_400


def fill(store: Store) -> None:
    """Every minute of DAYS days, every project, model and key: one request of 100 in, 20 out."""
    first = NOW - DAYS * 86_400
    combos = [(project, key, model) for project in PROJECTS for key in KEYS for model in MODELS]
    for day in range(DAYS):
        rows: list[tuple[object, ...]] = []
        for width in WIDTHS:
            per = width // 60
            for start in range(first + day * 86_400, first + (day + 1) * 86_400, width):
                rows += [
                    ("org_bench", width, start, *combo, per, 100 * per, 0, 20 * per, 0) for combo in combos
                ]
        store.database.submit(partial(_insert, rows)).result()


def _insert(rows: list[tuple[object, ...]], db: sqlite3.Connection) -> None:
    db.executemany(_ADD_USAGE, rows)


def timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    with tempfile.TemporaryDirectory() as folder:  # removed at the end, whatever happens
        measure(Path(folder), rounds)


def measure(folder: Path, rounds: int) -> None:
    store = Store(folder / "usage.sqlite3")
    started = time.perf_counter()
    fill(store)
    print(
        f"filled {DAYS} days x {len(PROJECTS) * len(MODELS) * len(KEYS)} series in {time.perf_counter() - started:.1f} s"
    )
    span = min(DAYS, 30) * 86_400
    usage = store.usage
    days, hours = [], []
    for _ in range(rounds):
        days.append(
            timed(lambda: usage.completions("org_bench", 86_400, NOW - span, NOW, ["project_id"], {}))
        )
        hours.append(timed(lambda: usage.completions("org_bench", 3600, NOW - span, NOW, ["project_id"], {})))
    result = usage.completions("org_bench", 86_400, NOW - span, NOW, ["project_id"], {})
    assert len(result) == len(PROJECTS) * span // 86_400
    day_ms, hour_ms = statistics.median(days) * 1000, statistics.median(hours) * 1000
    print(
        f"30 days by project and day: {day_ms:.1f} ms (goal <= 100 ms); baseline over hour buckets: {hour_ms:.1f} ms"
    )
    counts = 100_000 if not TINY else 2_000
    answer = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20}

    def count_many() -> None:
        for _ in range(counts):
            usage.count("org_bench", "proj_0", "key_0", "service-pro", answer, NOW)

    spent = timed(count_many)
    per_count = spent / counts * 1e6
    print(f"counting one answer: {per_count:.2f} us")
    store.close()
    alone = answer_cpu(20 if TINY else 1000, 2 if TINY else 8)
    print(
        f"counting's share of an allowed answer's CPU: {100 * per_count / alone:.2f} % (steadier than the pairs)"
    )


def _scope(key: str) -> Scope:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": "POST",
        "root_path": "",
        "path": "/v1/responses",
        "raw_path": b"/v1/responses",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"authorization", f"Bearer {key}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(BODY)).encode()),
        ],
    }


BODY = json.dumps({"model": "service-pro", "input": "Tell me about tides", "store": False}).encode()


async def _answers(app: ASGIApp, key: str, count: int) -> float:
    """CPU µs per allowed answer, `count` in a row."""
    sent = False

    async def receive() -> Message:
        # The body once; then, as a server's receive does until the client leaves, nothing: a plain request's
        # handler listens for the disconnect meanwhile (routes/waiting.py), and a receive that answered the
        # body again and again would keep that listener turning for ever.
        nonlocal sent
        if sent:
            await asyncio.Event().wait()
        sent = True
        return {"type": "http.request", "body": BODY, "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            assert message["status"] == 200, message

    started = time.process_time()
    for _ in range(count):
        sent = False
        await app(_scope(key), receive, send)
    return (time.process_time() - started) / count * 1e6


def answer_cpu(count: int, rounds: int) -> float:
    """Prints the pairs' figures; returns the least CPU µs of an answer not counted."""
    held = tempfile.TemporaryDirectory()  # removed at the end, whatever happens
    server = SandboxServer(SandboxConfig(data_dir=Path(held.name), rate_limit_per_minute=10**9)).start()
    try:
        assert server.credentials is not None
        key, usage = server.credentials.api_key, server.store.usage
        counting = usage.count
        on: list[float] = []
        off: list[float] = []
        for round_ in range(max(2, rounds)):  # the order swapped every round
            for counted in (True, False) if round_ % 2 == 0 else (False, True):
                usage.count = counting if counted else (lambda *_args: None)  # type: ignore[method-assign]
                (on if counted else off).append(asyncio.run(_answers(server.app, key, count)))
        usage.count = counting  # type: ignore[method-assign]
        ratios = sorted(counted / alone for counted, alone in zip(on, off, strict=True))
        best_on, best_off = min(on), min(off)
        print(
            f"an allowed answer: {best_on:.0f} us of CPU counted, {best_off:.0f} us not; the pairs' median "
            f"{100 * (statistics.median(ratios) - 1):+.1f} % (spread {100 * (ratios[0] - 1):+.1f} to "
            f"{100 * (ratios[-1] - 1):+.1f} %; goal <= 5 %)"
        )
        return best_off
    finally:
        server.stop()
        held.cleanup()


if __name__ == "__main__":
    main()
