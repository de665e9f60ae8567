"""Slow clients against a sandbox in its own process (loopback only): 2,000 connections that send nothing, and
normal requests served meanwhile, against the same requests with no idle crowd, in the same run.

Goals: every idle connection closed within 30 s; the normal requests' median within 1.2x of the baseline.
Run: python -m tests.perf.bench_slow_clients   (prints figures; not a timed test; bounded to ~1 minute)
"""

from __future__ import annotations

import selectors
import signal
import socket
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

IDLE = size(2_000, 5)
REQUESTS = size(300, 5)
# Seconds: the benchmark gives up waiting for the crowd to be closed after this (tiny: before the sandbox
# closes any, 10 s in, so the figure says none were).
BOUND = size(60.0, 0.1)


def medians(client: httpx.Client) -> float:
    """Median seconds of REQUESTS sequential GET /v1/models on one keep-alive connection."""
    times = []
    for _ in range(REQUESTS):
        started = time.perf_counter()
        assert client.get("/models").status_code == 200
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def open_crowd(port: int) -> list[socket.socket]:
    crowd = []
    for _ in range(IDLE):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.setblocking(False)
        crowd.append(sock)
    return crowd


def seconds_until_closed(crowd: list[socket.socket], opened_at: float) -> tuple[float, int]:
    """When the last idle socket was closed by the server (from its opening), and how many were."""
    selector = selectors.DefaultSelector()
    for sock in crowd:
        selector.register(sock, selectors.EVENT_READ)
    left, last = len(crowd), 0.0
    while left and time.monotonic() - opened_at < BOUND:
        for key, _ in selector.select(timeout=min(0.5, BOUND)):
            ready = key.fileobj
            assert isinstance(ready, socket.socket)
            sock = ready
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:
                selector.unregister(sock)
                sock.close()
                left -= 1
                last = time.monotonic() - opened_at
    selector.close()
    for sock in crowd:
        if sock.fileno() != -1:
            sock.close()
    return last, len(crowd) - left


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        process, creds = spawn_sandbox(Path(folder), "--rate-limit", "1000000")  # the requests, not 429s
        try:
            port = int(creds["base_url"].rsplit(":", 1)[1].split("/")[0])
            headers = {"authorization": f"Bearer {creds['api_key']}"}
            with httpx.Client(base_url=creds["base_url"], headers=headers) as client:
                medians(client)  # warm-up
                baseline = medians(client)
                opened_at = time.monotonic()
                crowd = open_crowd(port)
                opened = time.monotonic() - opened_at
                loaded = medians(client)
                closed_after, closed = seconds_until_closed(crowd, opened_at)
                after = medians(client)
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)
            if process.stdout:
                process.stdout.close()
    print(
        f"normal requests, median: {baseline * 1000:.2f} ms alone, {loaded * 1000:.2f} ms beside {IDLE:,} idle"
        f" connections ({loaded / baseline:.2f}x; goal <= 1.2x), {after * 1000:.2f} ms after"
    )
    print(
        f"idle connections: {IDLE:,} opened in {opened:.1f} s; {closed:,} closed by the server,"
        f" the last {closed_after:.1f} s after the first opened (goal: all within 30 s)"
    )


if __name__ == "__main__":
    main()
