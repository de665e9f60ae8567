"""Hostile load against a sandbox in its own process (loopback only): 10 hostile schemas (`"minItems":
1000000000`, half in `text.format`, half in a function's parameters) and SLOW_BODIES request bodies sent a
byte every 2 s with a valid key, all at once, while normal requests go on.

Figures: the sandbox's peak resident memory (VmHWM of its process, /proc/PID/status), the hostile requests'
answers, and the normal requests' latency during the attack against the same requests before it.
Goals: peak under 1 GB; every normal request answered (none failed) meanwhile.
Run: python -m tests.perf.bench_hostile_load   (SLOW_BODIES=N sets the crowd: 4,000 by default; the machine's
other users share its cores)
"""

from __future__ import annotations

import os
import signal
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

SLOW_BODIES = int(os.environ.get("SLOW_BODIES") or size(4_000, 20))
HOSTILE = 10
ATTACK_SECONDS = size(75.0, 0.4)  # under attack: past the body deadline (60 s), so the drops show
BASELINE = size(100, 5)
# Between two normal requests: none, or at the tiny size a pause, so that the attack's 0.4 s see a score of
# them (every path still taken) rather than as many as a core serves.
PAUSE = size(0.0, 0.02)
TRICKLE = 2.0  # seconds between two bytes of a slow body
HUGE = {"type": "array", "items": {"type": "string"}, "minItems": 1_000_000_000}
HOSTILE_SCHEMA = {
    "type": "object",
    "properties": {"value": HUGE},
    "required": ["value"],
    "additionalProperties": False,
}
NORMAL = {"model": "service-pro", "input": "Say hello in five words"}


def peak_rss_mb(pid: int) -> float:
    """VmHWM of a process: its peak resident memory, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def hostile_bodies() -> list[dict[str, Any]]:
    formatted = {"type": "json_schema", "name": "hostile", "schema": HOSTILE_SCHEMA, "strict": True}
    tool = {"type": "function", "name": "get_weather", "parameters": HOSTILE_SCHEMA}
    by_format = {"model": "service-pro", "input": "x", "text": {"format": formatted}}
    by_function = {"model": "service-pro", "input": "Use get_weather: the weather?", "tools": [tool]}
    return [by_format if number % 2 else by_function for number in range(HOSTILE)]


class SlowBodies:
    """SLOW_BODIES connections, each a POST head with a valid key announcing a 1 MB body, then a byte of it
    every TRICKLE seconds (spread over the interval), on one thread, until stopped."""

    def __init__(self, port: int, key: str) -> None:
        self.head = (
            "POST /v1/responses HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {key}\r\nContent-Length: 1000000\r\n\r\n{{"
        ).encode()
        self.port = port
        self.sockets: list[socket.socket] = []
        self.closed_by_server = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)

    def start(self) -> None:
        for _ in range(SLOW_BODIES):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            sock.sendall(self.head)
            sock.setblocking(False)
            self.sockets.append(sock)
        self._thread.start()

    def _trickle(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            for number, sock in enumerate(self.sockets):
                if self._stop.is_set():
                    return
                if sock.fileno() == -1:
                    continue
                try:
                    sock.send(b" ")
                except OSError:  # the server gave up on it (408) or closed it
                    sock.close()
                    self.closed_by_server += 1
                due = started + TRICKLE * (number + 1) / len(self.sockets)
                if (wait := due - time.monotonic()) > 0.005:
                    time.sleep(wait)
            time.sleep(max(0.0, started + TRICKLE - time.monotonic()))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.sockets:
            sock.close()


def timed(client: httpx.Client, until: Callable[[], bool]) -> tuple[list[float], int]:
    """Normal non-streamed requests one after another until `until()`: their seconds, and failures."""
    times, failed = [], 0
    while not until():
        started = time.perf_counter()
        try:
            answer = client.post("/responses", json=NORMAL)
            ok = answer.status_code == 200 and answer.json()["status"] == "completed"
        except httpx.HTTPError:
            ok = False
        times.append(time.perf_counter() - started)
        failed += not ok
        if PAUSE:
            time.sleep(PAUSE)
    return times, failed


def attack(base_url: str, key: str, pid: int) -> None:
    port = int(base_url.rsplit(":", 1)[1].split("/")[0])
    headers = {"authorization": f"Bearer {key}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
        count = 0

        def enough() -> bool:
            nonlocal count
            count += 1
            return count > BASELINE

        before, failed_before = timed(client, enough)
        rss_before = peak_rss_mb(pid)
        crowd = SlowBodies(port, key)
        opened_at = time.monotonic()
        crowd.start()
        opened = time.monotonic() - opened_at
        with ThreadPoolExecutor(HOSTILE) as pool, httpx.Client(base_url=base_url, headers=headers) as hostile:
            sent = time.monotonic()

            def post(body: dict[str, Any]) -> tuple[httpx.Response, float]:
                answer = hostile.post("/responses", json=body, timeout=120)
                return answer, time.monotonic() - sent

            futures = [pool.submit(post, body) for body in hostile_bodies()]
            during, failed = timed(client, lambda: time.monotonic() - sent > ATTACK_SECONDS)
            answers = [future.result()[0] for future in futures]
            hostile_seconds = max(future.result()[1] for future in futures)
        peak = peak_rss_mb(pid)
        crowd.stop()
    statuses = sorted(f"{a.status_code} {a.json().get('status', '')}".strip() for a in answers)
    p95 = statistics.quantiles(during, n=20)[-1] if len(during) > 1 else during[0]
    print(
        f"sandbox peak resident memory: {peak:,.0f} MB (before the attack {rss_before:,.0f} MB;"
        f" goal under 1,024 MB) with {SLOW_BODIES:,} slow bodies (opened in {opened:.1f} s) and {HOSTILE} hostile"
        " schemas at once"
    )
    print(
        f"hostile schemas: answered {', '.join(sorted(set(statuses)))} ({statuses.count(statuses[0])}x first),"
        f" all within {hostile_seconds:.1f} s"
    )
    print(
        f"normal requests: {len(during):,} answered during {ATTACK_SECONDS:g} s of attack, {failed} failed"
        f" (goal 0); median {statistics.median(during) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, against"
        f" {statistics.median(before) * 1000:.1f} ms before ({failed_before} failed);"
        f" {crowd.closed_by_server:,} slow bodies dropped by the server meanwhile"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        # A rate limit high enough that the figure is memory and latency, not 429s for the crowd's key.
        process, creds = spawn_sandbox(Path(folder), "--rate-limit", "100000000")
        try:
            attack(creds["base_url"], creds["api_key"], process.pid)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            if process.stdout:
                process.stdout.close()


if __name__ == "__main__":
    main()
