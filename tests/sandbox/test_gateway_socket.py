"""The gateway alone decides the source address, seen through real sockets to real server processes.

Every server runs with FORWARDED_ALLOW_IPS="*", the variable that made uvicorn rewrite the client address
from X-Forwarded-For before any of our code ran. Each one allows only 203.0.113.0/24 and 2001:db8::/32, so a
request that gets through with a spoofed header shows the bypass; a 403 names the address the gateway saw.
"""

from __future__ import annotations

import signal
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn

from app.sandbox.server import uvicorn_config
from tests.fork_server import ForkServer
from tests.sandbox_process import ServerProcess, spawn_sandbox

ALLOWED = ("203.0.113.0/24", "2001:db8::/32")
HOSTILE_ENV = {"FORWARDED_ALLOW_IPS": "*"}


@dataclass
class Served:
    process: ServerProcess
    port: int
    api_key: str

    def get(self, peer: str, headers: list[tuple[str, str]] | None = None) -> httpx.Response:
        """GET /v1/models from the loopback address `peer`, with these header lines."""
        host = f"[{peer}]" if ":" in peer else peer
        lines = [("authorization", f"Bearer {self.api_key}"), *(headers or [])]
        return httpx.get(f"http://{host}:{self.port}/v1/models", headers=lines, timeout=10)


def serve(forks: ForkServer, folder: Path, *options: str) -> Served:
    process, creds = spawn_sandbox(folder, *options, env=HOSTILE_ENV, forks=forks)
    port = int(creds["base_url"].rsplit(":", 1)[1].split("/")[0])
    admin_url = f"http://127.0.0.1:{port}/v1/organizations/{creds['org_id']}/ip_allowlist"
    # Behind a trusted proxy a request without the header is judged by its peer (loopback); before the list is
    # on that blocks nothing, so this setup works for every server.
    with httpx.Client(headers={"authorization": f"Bearer {creds['admin_key']}"}) as admin:
        for cidr in ALLOWED:
            assert admin.post(f"{admin_url}/entries", json={"cidr": cidr}).status_code == 201
        assert admin.patch(admin_url, params={"force": "true"}, json={"enabled": True}).status_code == 200
    return Served(process, port, creds["api_key"])


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, python_m: ForkServer) -> Iterator[dict[str, Served]]:
    options = {
        "ipv4": ("--host", "127.0.0.1"),
        "dual": ("--host", "::"),
        "ipv4 behind proxy": ("--host", "127.0.0.1", "--trust-proxy", "127.0.0.1/32"),
        "dual behind proxy": ("--host", "::", "--trust-proxy", "127.0.0.1/32", "--trust-proxy", "::1/128"),
    }
    with ThreadPoolExecutor(len(options)) as pool:  # their start-ups overlap
        futures = {
            name: pool.submit(serve, python_m, tmp_path_factory.mktemp("gw"), *args)
            for name, args in options.items()
        }
        started = {name: future.result() for name, future in futures.items()}
    yield started
    for served in started.values():
        served.process.send_signal(signal.SIGTERM)
        served.process.wait(timeout=20)
        if served.process.stdout:
            served.process.stdout.close()


def peers(name: str) -> list[str]:
    return ["127.0.0.1", "::1"] if name.startswith("dual") else ["127.0.0.1"]


SPOOFS = [
    [("x-forwarded-for", "203.0.113.5")],
    [("x-forwarded-for", "203.0.113.5, 203.0.113.6")],
    [("x-forwarded-for", "198.51.100.1"), ("x-forwarded-for", "203.0.113.5")],  # repeated lines
    [("x-forwarded-for", "[2001:db8::5]:443")],
    [("forwarded", "for=203.0.113.5"), ("x-real-ip", "203.0.113.5")],
    [("x-forwarded-for", "garbage")],
    [("x-forwarded-for", "")],
    [("x-forwarded-for", "203.0.113.5, garbage, 203.0.113.6")],
    [("x-forwarded-for", "203.0.113.5:99999999")],
]


@pytest.mark.parametrize("name", ["ipv4", "dual"])
def test_without_trust_proxy_the_header_is_ignored_from_every_loopback_peer(
    servers: dict[str, Served], name: str
) -> None:
    served = servers[name]
    for peer in peers(name):
        for headers in SPOOFS:
            response = served.get(peer, headers)
            assert response.status_code == 403, (peer, headers)
            # The peer, as the gateway saw it: a dual-stack listener sees IPv4 as ::ffff:127.0.0.1, compared
            # and shown as IPv4.
            assert response.headers["x-request-source-ip"] == peer, (peer, headers)


@pytest.mark.parametrize("name", ["ipv4 behind proxy", "dual behind proxy"])
def test_behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client(
    servers: dict[str, Served], name: str
) -> None:
    served = servers[name]
    for peer in peers(name):
        cases = [
            ([("x-forwarded-for", "203.0.113.5")], 200, None),
            ([("x-forwarded-for", "198.51.100.1, 203.0.113.5")], 200, None),
            ([("x-forwarded-for", "198.51.100.1"), ("x-forwarded-for", "203.0.113.5, 127.0.0.1")], 200, None),
            ([("x-forwarded-for", "[2001:db8::5]:443")], 200, None),
            ([("x-forwarded-for", "203.0.113.5:51234")], 200, None),
            # Spoofed: the client put an allowed address first; the proxy appended the real one.
            ([("x-forwarded-for", "203.0.113.5, 198.51.100.1")], 403, "198.51.100.1"),
            ([("x-forwarded-for", "203.0.113.5"), ("x-forwarded-for", "198.51.100.1")], 403, "198.51.100.1"),
            # No header at all: a direct request from the proxy's own host, judged by the peer.
            ([], 403, peer),
            ([("x-forwarded-for", "")], 403, "unknown"),
            ([("x-forwarded-for", "garbage")], 403, "unknown"),
            ([("x-forwarded-for", "203.0.113.5, garbage")], 403, "unknown"),
            ([("x-forwarded-for", "203.0.113.5%eth0")], 403, "unknown"),
            ([("x-forwarded-for", "0xCB.0.113.5")], 403, "unknown"),
            ([("forwarded", "for=203.0.113.5")], 403, peer),
        ]
        for headers, status, seen in cases:
            response = served.get(peer, headers)
            assert response.status_code == status, (peer, headers)
            if seen is not None:
                assert response.headers["x-request-source-ip"] == seen, (peer, headers)


def test_an_untrusted_peer_is_the_client_even_on_a_server_that_trusts_another_proxy(
    servers: dict[str, Served],
) -> None:
    served = servers["ipv4 behind proxy"]  # trusts 127.0.0.1 only; ::1 is not served by an IPv4 listener
    dual = servers["dual behind proxy"]
    assert served.get("127.0.0.1", [("x-forwarded-for", "203.0.113.5")]).status_code == 200
    # The dual-stack one trusts both loopbacks; an IPv4 peer reaches it as ::ffff:127.0.0.1, trusted as IPv4.
    assert dual.get("127.0.0.1", [("x-forwarded-for", "203.0.113.5")]).status_code == 200


def raw_request(port: int, header_block: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(
            b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + header_block + b"\r\n"
        )
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_malformed_header_bytes_never_let_a_request_through(servers: dict[str, Served]) -> None:
    for name in ("ipv4", "ipv4 behind proxy"):
        served = servers[name]
        auth = f"Authorization: Bearer {served.api_key}\r\n".encode()
        for block in (
            b"X-Forwarded-For: 203.0.113.5\xff\r\n",
            b"X-Forwarded-For: 203.0.113.5\r\n X-Forwarded-For: 203.0.113.6\r\n",  # obsolete line folding
            b"X-Forwarded-For:203.0.113.5\r\nX-FORWARDED-FOR: 198.51.100.1\r\n",
            b"X-Forwarded-For: " + b"203.0.113.5, " * 2000 + b"198.51.100.1\r\n",
        ):
            answer = raw_request(served.port, auth + block)
            status = int(answer.split(b" ", 2)[1])
            assert status in (400, 403, 431), (name, block[:60], answer[:200])


def test_uvicorn_is_never_configured_to_read_proxy_headers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")

    async def app(scope: object, receive: object, send: object) -> None:
        raise AssertionError("not called")

    config: uvicorn.Config = uvicorn_config(app, None)
    config.load()
    assert config.proxy_headers is False and config.forwarded_allow_ips == []
    assert config.loaded_app.__class__.__name__ != "ProxyHeadersMiddleware"
