"""The gateway's own cost per request, without HTTP: the sandbox's ASGI app called in this process.

bench_gateway measures through uvicorn and wrk, whose figures move with the machine's other load; this one
calls the app directly with the same three requests (the bare /healthz route, an allowed and a refused
/v1/models from a 1,000-entry list with expiry and usage counting on) and the Starlette routes alone (the
same /v1/models without the gateway), and takes the least CPU time of several rounds. Allowed minus the
route alone is what the gateway adds to an allowed request. A refused request is also sent through a
gateway whose record of refusals does nothing (the baseline of what recording a refusal costs, in the same
run). Run: python -m tests.perf.bench_gateway_asgi
"""

from __future__ import annotations

import asyncio
import ipaddress
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from starlette.types import ASGIApp, Message, Scope

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.gateway.admission import Gateway
from app.sandbox.store.aggregates import Store
from tests.perf.tiny import size


class _NoRecord:
    """A traffic record that keeps nothing."""

    def refused(self, *_args: object) -> None:
        pass

    def admitted(self, *_args: object) -> None:
        pass


class _Unrecorded:
    """The store, but with a traffic record that keeps nothing."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.traffic = _NoRecord()

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)


ROUNDS = size(5, 1)


def request(path: str, headers: list[tuple[bytes, bytes]]) -> Scope:
    """The scope uvicorn makes for a GET from 127.0.0.1 (the bench's trusted proxy)."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000),
        "scheme": "http",
        "method": "GET",
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:8000"), *headers],
    }


async def per_request(app: ASGIApp, path: str, headers: list[tuple[bytes, bytes]], count: int) -> float:
    """CPU µs per request, `count` requests in a row."""
    statuses: set[int] = set()

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            statuses.add(message["status"])

    started = time.process_time()
    for _ in range(count):
        await app(request(path, headers), receive, send)
    used = time.process_time() - started
    assert len(statuses) == 1, statuses  # every request got the one answer the case expects
    return used / count * 1e6


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else size(2000, 20)
    folder = tempfile.TemporaryDirectory()
    config = SandboxConfig(
        data_dir=Path(folder.name),
        trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")],
        rate_limit_per_minute=100_000_000,
        max_entries=5000,
    )
    server = SandboxServer(config).start()
    try:
        creds = server.credentials
        assert creds is not None
        org = creds.org_id
        headers = {"authorization": f"Bearer {creds.admin_key}", "x-forwarded-for": "198.51.100.7"}
        with httpx.Client(base_url=server.base_url, headers=headers) as admin:
            for i in range(size(999, 20)):
                entry = {"cidr": f"10.{i // 250}.{i % 250}.0/24"}
                admin.post(f"/organizations/{org}/ip_allowlist/entries", json=entry)
            admin.post(f"/organizations/{org}/ip_allowlist/entries", json={"cidr": "198.51.100.0/24"})
            assert admin.patch(f"/organizations/{org}/ip_allowlist", json={"enabled": True}).is_success
        # A long list's lookup table is compiled off the request path; a short one's (the tiny size's) inline.
        time.sleep(size(0.5, 0.0))
        key = (b"authorization", f"Bearer {creds.api_key}".encode())
        cases: dict[str, tuple[ASGIApp, str, list[tuple[bytes, bytes]]]] = {
            "bare /healthz": (server.app, "/healthz", []),
            "allowed": (server.app, "/v1/models", [key, (b"x-forwarded-for", b"198.51.100.7")]),
            "refused": (server.app, "/v1/models", [key, (b"x-forwarded-for", b"203.0.113.9")]),
            "route alone": (server.app.app, "/v1/models", []),
            "refused, not recorded": (
                Gateway(server.app.app, _Unrecorded(server.store), config),  # type: ignore[arg-type]
                "/v1/models",
                [key, (b"x-forwarded-for", b"203.0.113.9")],
            ),
        }

        async def measure() -> dict[str, list[float]]:
            figures: dict[str, list[float]] = {name: [] for name in cases}
            for app, path, sent in cases.values():
                await per_request(app, path, sent, size(200, 5))  # warm: caches, the table
            for _ in range(ROUNDS):  # interleaved, so a burst of other load touches every case alike
                for name, (app, path, sent) in cases.items():
                    figures[name].append(await per_request(app, path, sent, count))
            return figures

        figures = asyncio.run(measure())
    finally:
        server.stop()
        folder.cleanup()
    least = {name: min(values) for name, values in figures.items()}
    for name, values in figures.items():
        print(f"{name:>22}: {least[name]:6.1f} µs per request (median {statistics.median(values):.1f})")
    print(
        f"the gateway's own part of an allowed request (allowed - route alone): "
        f"{least['allowed'] - least['route alone']:.1f} µs; a refused request, whole: {least['refused']:.1f} µs"
    )
    recorded, unrecorded = least["refused"], least["refused, not recorded"]
    print(
        f"recording a refusal: {recorded - unrecorded:+.1f} µs; a recorded refusal runs at "
        f"{unrecorded / recorded:.2f}x the rate of an unrecorded one, {least['bare /healthz'] / recorded:.2f}x "
        "that of the bare route (CPU time)"
    )


if __name__ == "__main__":
    main()
