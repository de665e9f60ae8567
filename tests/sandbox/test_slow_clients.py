"""Slow clients are dropped: a connection that sends nothing, or its head a byte at a time, is closed at the
head deadline; beyond the connection cap a new connection gets a 503 at once; normal requests go on."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import pytest

from tests.conftest import Sandbox

HEAD_TIMEOUT = 0.5


@pytest.fixture
def guarded(sandbox_factory: Callable[..., Sandbox]) -> Sandbox:
    return sandbox_factory(head_timeout=HEAD_TIMEOUT, max_connections=20)


def connect(sandbox: Sandbox) -> socket.socket:
    return socket.create_connection(("127.0.0.1", sandbox.server.port), timeout=10)


def closed_within(sock: socket.socket, seconds: float, drip: bytes = b"") -> float:
    """Seconds until the server closes `sock` (reads EOF or a reset), sending `drip` a byte each 0.1 s."""
    started = time.monotonic()
    sock.settimeout(0.1)
    sent = 0
    while time.monotonic() - started < seconds:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - started
        except TimeoutError:
            pass
        except ConnectionResetError:
            return time.monotonic() - started
        if sent < len(drip):
            try:
                sock.send(drip[sent : sent + 1])
            except OSError:
                return time.monotonic() - started
            sent += 1
    raise AssertionError(f"still open after {seconds} s")


def test_a_connection_that_sends_nothing_is_closed(guarded: Sandbox) -> None:
    with connect(guarded) as sock:
        assert closed_within(sock, 5) >= HEAD_TIMEOUT * 0.9


def test_a_head_sent_a_byte_at_a_time_is_closed(guarded: Sandbox) -> None:
    head = b"GET /v1/models HTTP/1.1\r\nhost: x\r\n" + b"x-slow: " + b"a" * 200
    with connect(guarded) as sock:
        assert closed_within(sock, 5, drip=head) < 3


def test_after_a_response_the_next_head_has_the_same_deadline(guarded: Sandbox) -> None:
    with connect(guarded) as sock:
        sock.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 401")  # answered (no key), kept alive
        assert closed_within(sock, 5, drip=b"GET /v1/models HTTP/1.1\r\n" + b"x" * 100) < 3


def test_beyond_the_cap_a_new_connection_gets_a_503_and_normal_requests_go_on(guarded: Sandbox) -> None:
    with ExitStack() as held:
        idle = [held.enter_context(connect(guarded)) for _ in range(20)]
        time.sleep(0.1)  # let the server accept them all
        with connect(guarded) as extra:
            extra.sendall(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n")
            answer = extra.recv(65536)
        assert answer.startswith(b"HTTP/1.1 503") and b"too_many_connections" in answer
        for sock in idle:  # the idle crowd is dropped at the head deadline...
            closed_within(sock, 5)
    with guarded.api() as client:  # ...and the sandbox serves as before
        assert client.get("/models").status_code == 200


def test_a_request_slower_than_the_deadline_to_answer_is_not_cut(sandbox_factory: Callable[..., Any]) -> None:
    """The deadline is for the head only: a long answer streams past it."""
    sandbox: Sandbox = sandbox_factory(head_timeout=0.3, stream_delay_ms=20)
    body = {"model": "service-pro", "input": "Write 60 words", "stream": True}
    with sandbox.api() as client, client.stream("POST", "/responses", json=body) as response:
        started = time.monotonic()
        text = "".join(response.iter_text())
    assert time.monotonic() - started > 0.3 and "response.completed" in text
