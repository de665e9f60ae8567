"""Slow clients are dropped: a connection that sends nothing, or its head a byte at a time, is closed at the
head deadline; beyond the connection cap a new connection gets a 503 at once; normal requests go on."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Sandbox

HEAD_TIMEOUT = 0.3


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


def test_beyond_the_cap_a_new_connection_gets_a_503_and_normal_requests_go_on(
    sandbox_factory: Callable[..., Sandbox],
) -> None:
    # A longer head deadline than the other tests': the whole crowd is still held when the extra one comes.
    guarded = sandbox_factory(head_timeout=0.5, max_connections=20)
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
    sandbox: Sandbox = sandbox_factory(head_timeout=0.15, stream_delay_ms=10)
    body = {"model": "service-pro", "input": "Write 30 words", "stream": True}
    with sandbox.api() as client, client.stream("POST", "/responses", json=body) as response:
        started = time.monotonic()
        text = "".join(response.iter_text())
    assert time.monotonic() - started > 0.15 and "response.completed" in text


def answer_to(sandbox: Sandbox, request: bytes, drip: int = 0) -> bytes:
    """The whole answer to `request`, sent at once or in pieces of `drip` bytes."""
    with connect(sandbox) as sock:
        step = drip or len(request)
        for start in range(0, len(request), step):
            try:
                sock.sendall(request[start : start + step])
            except OSError:
                break  # answered and closed before the rest was sent
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_server_parses_with_httptools(sandbox: Sandbox) -> None:
    """httptools is the one parser: the server in use runs the guarded httptools protocol."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    from app.sandbox.gateway.slow_clients import HeadDeadline

    protocol = sandbox.server._server.config.http
    assert isinstance(protocol, type)
    assert issubclass(protocol, HttpToolsProtocol) and issubclass(protocol, HeadDeadline)


def test_without_httptools_the_sandbox_does_not_start_and_says_what_to_install(tmp_path: Path) -> None:
    """A Python without httptools (blocked in the child's sys.modules): a clear error, exit 1, no traceback,
    and nothing opened: no store is made, the port stays free."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    data = tmp_path / "data"
    program = (
        "import sys; sys.modules['httptools'] = None; from app.sandbox.cli import main; "
        f"sys.exit(main(['serve', '--port', '{port}', '--data', {str(data)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "httptools" in done.stderr and "pip install httptools" in done.stderr
    assert "Traceback" not in done.stderr and "listening" not in done.stdout
    assert not (data / "sandbox.sqlite3").exists()
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))  # the port was never taken


def test_without_httptools_the_embedded_server_raises_before_opening_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.sandbox import SandboxConfig, SandboxServer
    from app.sandbox.gateway.slow_clients import HttpParserMissing

    monkeypatch.setitem(sys.modules, "httptools", None)  # an import of it now fails, as where it is missing
    config = SandboxConfig(data_dir=tmp_path / "data")
    with pytest.raises(HttpParserMissing, match="pip install httptools"):
        SandboxServer(config)
    assert not config.database.exists()


@pytest.mark.parametrize("drip", [0, 4096])
def test_a_head_over_16_kb_is_a_400_whole_or_in_pieces(sandbox: Sandbox, drip: int) -> None:
    head = b"GET /v1/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n"
    over = head + b"".join(b"x-pad-%d: %s\r\n" % (n, b"a" * 1000) for n in range(17)) + b"\r\n"
    assert answer_to(sandbox, over, drip).startswith(b"HTTP/1.1 400")
    long_url = b"GET /v1/models?q=" + b"a" * 17000 + b" HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
    assert answer_to(sandbox, long_url, drip).startswith(b"HTTP/1.1 400")
    unended = head + b"x-long: " + b"a" * 20000  # one header that never ends
    assert answer_to(sandbox, unended, 4096).startswith(b"HTTP/1.1 400")


def test_a_head_under_16_kb_with_a_larger_body_in_one_write_is_served(sandbox: Sandbox) -> None:
    """Only the head counts towards the cap, even when the body arrives in the same read."""
    body = b'{"model": "service-pro", "input": "' + b"a" * 40000 + b'"}'
    head = (
        b"POST /v1/responses HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\n"
        b"authorization: Bearer " + sandbox.creds.api_key.encode() + b"\r\n"
        b"x-pad: " + b"a" * 15000 + b"\r\ncontent-length: %d\r\n\r\n" % len(body)
    )
    assert answer_to(sandbox, head + body).startswith(b"HTTP/1.1 200")


def test_pipelined_requests_are_answered_in_order(sandbox: Sandbox) -> None:
    one = (
        b"GET /v1/models HTTP/1.1\r\nhost: x\r\nauthorization: Bearer "
        + sandbox.creds.api_key.encode()
        + b"\r\n\r\n"
    )
    last = b"GET /v1/nothing HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
    answer = answer_to(sandbox, one * 3 + last)
    assert answer.count(b"HTTP/1.1 200") == 3 and answer.rindex(b"HTTP/1.1 200") < answer.index(b"HTTP/1.1 4")


def test_a_chunked_body_after_expect_100_continue_is_served(sandbox: Sandbox) -> None:
    """The parser change keeps what a client sees: `100 Continue` once the app reads, then the answer."""
    body = b'{"model": "service-pro", "input": "Say hi"}'
    request = (
        b"POST /v1/responses HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\n"
        b"authorization: Bearer " + sandbox.creds.api_key.encode() + b"\r\n"
        b"expect: 100-continue\r\ntransfer-encoding: chunked\r\n\r\n"
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    )
    answer = answer_to(sandbox, request)
    assert answer.startswith(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200"), answer[:200]
    assert b'"status":"completed"' in answer.replace(b" ", b"")


def test_a_malformed_head_is_a_400_not_a_5xx(sandbox: Sandbox) -> None:
    for head in (
        b"GET /v1/models HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n",
        b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
        b"GET /v1/models HTTP/9.9\r\nhost: x\r\n\r\n",
        b"\x00\x01\x02 / HTTP/1.1\r\n\r\n",
    ):
        assert answer_to(sandbox, head).startswith(b"HTTP/1.1 400"), head


def test_a_body_sent_a_byte_at_a_time_gets_a_408_and_the_connection_closes(
    sandbox_factory: Callable[..., Sandbox],
) -> None:
    """A valid key does not buy time: the body has its own deadline once the head is in."""
    slow = sandbox_factory(head_timeout=0.2, body_timeout=0.5)  # the body's, not the head's, ends it
    head = (
        b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 400\r\n"
        b"authorization: Bearer " + slow.creds.api_key.encode() + b"\r\n\r\n"
    )
    with connect(slow) as sock:
        sock.sendall(head)
        started = time.monotonic()
        answer = b""
        sock.settimeout(0.1)
        # Until the answer's body is in too: the head and the body come in two writes, and may be read apart.
        while b"request_timeout" not in answer and time.monotonic() - started < 5:
            try:
                sock.send(b" ")
                answer += sock.recv(65536)
            except TimeoutError:
                pass
        assert answer.startswith(b"HTTP/1.1 408") and b"request_timeout" in answer
        assert 0.45 <= time.monotonic() - started < 3
        assert closed_within(sock, 5, drip=b" " * 50) < 3


def test_a_client_that_stops_reading_its_stream_is_dropped(sandbox_factory: Callable[..., Any]) -> None:
    """A stream whose client neither reads nor closes would hold its handler (and a local model's turn) for
    ever: once the answer has filled the socket, the client has `send_timeout` to read, then is dropped."""
    sandbox: Sandbox = sandbox_factory(send_timeout=0.5)
    body = json.dumps({"model": "service-pro", "input": "Write 50000 words", "stream": True}).encode()
    head = (
        f"POST /v1/responses HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer {sandbox.creds.api_key}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # fills at once
    with sock:
        sock.connect(("127.0.0.1", sandbox.server.port))
        sock.sendall(head + body)
        started = time.monotonic()
        # Not reading: once the buffers are full, the server has `send_timeout` left before it drops us.
        for held in (True, False):  # accepted, then dropped
            while bool(sandbox.server.open_connections) != held and time.monotonic() - started < 10:
                time.sleep(0.01)
        assert sandbox.server.open_connections == 0 and 0.5 <= time.monotonic() - started < 10
        received = b""
        sock.settimeout(5)
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass
    assert b"response.created" in received  # the stream had begun...
    assert b"response.completed" not in received  # ...and was cut, not waited out
    with sandbox.api() as client:
        assert client.get("/models").status_code == 200
