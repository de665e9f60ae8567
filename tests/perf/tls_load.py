"""A small keep-alive HTTPS load generator with a client certificate, for the mutual TLS case of
bench_gateway (wrk cannot present a client certificate). Requests per second over `connections` TLS
connections for `seconds`; the same generator loads the bare route, so the two are compared like for like."""

from __future__ import annotations

import asyncio
import ssl
import time
from urllib.parse import urlsplit


async def _one_connection(
    url: str, headers: dict[str, str], context: ssl.SSLContext, until: float, counts: list[int]
) -> None:
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port, ssl=context)
    lines = [
        f"GET {parts.path} HTTP/1.1",
        f"Host: {parts.netloc}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    request = ("\r\n".join(lines) + "\r\n\r\n").encode()
    statuses: set[bytes] = set()
    try:
        # At least one request per connection: a handshake that outlasts a short run (the tiny size's, on a
        # loaded machine) still checks the answer, and the run never counts nothing.
        while True:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            statuses.add(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            counts[0] += 1
            if time.monotonic() >= until:
                break
    finally:
        writer.close()
    assert statuses == {b"200"}, statuses  # every request admitted, as the case expects


def requests_per_second(
    url: str, headers: dict[str, str], context: ssl.SSLContext, seconds: float = 3.0, connections: int = 8
) -> float:
    async def run() -> float:
        counts = [0]
        started = time.monotonic()
        until = started + seconds
        await asyncio.gather(
            *(_one_connection(url, headers, context, until, counts) for _ in range(connections))
        )
        return counts[0] / (time.monotonic() - started)

    return asyncio.run(run())
