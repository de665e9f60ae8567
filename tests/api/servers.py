"""Tiny raw HTTP peers for what a real sandbox cannot produce: HTML, a dropped stream, a malformed event."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tests.loopback import serving


@contextmanager
def raw_server(reply: bytes, close_after: bool = True) -> Iterator[str]:
    """Answers every connection with `reply` (after reading the request), then closes. Yields a base URL."""

    def answer(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(2)
            try:
                read_whole_request(conn)
                conn.sendall(reply)
            except OSError:
                pass

    with serving(answer) as port:
        yield f"http://127.0.0.1:{port}/v1"


def read_whole_request(conn: socket.socket) -> None:
    """Read a request's head and its body (by content-length). A server that closes with part of the request
    unread makes the kernel answer with a reset, and the client loses the reply it had not read yet: with one
    recv, that happened whenever the body came in a second segment (a loaded machine)."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = conn.recv(65536)
        if not chunk:
            return
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.partition(b":")[2])
            for line in head.split(b"\r\n")[1:]
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length and (chunk := conn.recv(65536)):
        body += chunk


def sse_head() -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"


def sse(event: str, data: str) -> bytes:
    return f"event: {event}\ndata: {data}\n\n".encode()


@contextmanager
def echo_server(host: str, body: str | None = None, tls: ssl.SSLContext | None = None) -> Iterator[str]:
    """An IP echo service on a loopback address (127.0.0.1 or ::1): answers the caller's address as it sees
    it, or `body` when given; over HTTPS with `tls`. Yields its URL."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            payload = (body if body is not None else self.client_address[0]).encode()
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    class Server(ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    server = Server((host, 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    # shutdown() waits for serve_forever to look at its flag, every poll_interval (0.5 s by default: half a
    # second of nothing at the end of every test that used one).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        shown = f"[{host}]" if ":" in host else host
        yield f"{'https' if tls else 'http'}://{shown}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


CLOSE = b"<close>"  # an action: read the request, then hang up without a byte of answer
STALL = b"<stall>"  # an action: read the request, then say nothing until the server stops
RESET = b"<reset>"  # an action prefix: send what follows, then reset the connection (RST, not FIN)


def reply(status: str, body: bytes, headers: dict[str, str] | None = None, keep_alive: bool = True) -> bytes:
    """A whole HTTP/1.1 answer as bytes."""
    lines = [f"HTTP/1.1 {status}", f"content-length: {len(body)}"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    lines.append("connection: keep-alive" if keep_alive else "connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


class ScriptedServer:
    """A loopback HTTP/1.1 peer that answers the n-th request with the n-th action, keeping connections
    alive between them as a real server does; records (method, path, body) of every request."""

    def __init__(
        self, actions: list[bytes], *, refuse_for: float = 0.0, unreachable_for: float = 0.0
    ) -> None:
        """`refuse_for` seconds: the port refuses connections (bound, not listening) before it serves.
        `unreachable_for` seconds: its accept queue is full, so a connect gets no answer at all (the client's
        connect timeout), as from a host that drops packets."""
        self.actions = list(actions)
        self.requests: list[tuple[str, str, bytes]] = []
        self._stop = threading.Event()
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._refuse_for, self._unreachable_for = refuse_for, unreachable_for
        self._filler: socket.socket | None = None
        if unreachable_for:
            # Linux drops a SYN while the accept queue is full; a backlog of 0 holds one waiting connection.
            self._listener.listen(0)
            self._filler = socket.create_connection(self._listener.getsockname())
        elif not refuse_for:
            self._listener.listen(8)
        self._threads: list[threading.Thread] = []
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> ScriptedServer:
        self._start(self._open_later if self._refuse_for or self._unreachable_for else self._accept)
        return self

    def _open_later(self) -> None:
        if self._stop.wait(self._refuse_for or self._unreachable_for):
            return
        if self._filler is not None:
            self._filler.close()  # the accept loop takes it off the queue: it sends no request
        else:
            self._listener.listen(8)
        self._accept()

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._listener.close()
        if self._filler is not None:
            self._filler.close()
        for thread in self._threads:
            thread.join(timeout=3)

    def _start(self, target: Callable[..., object], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        self._listener.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self._start(self._serve, conn)

    def _read_request(self, conn: socket.socket, buffer: bytes) -> tuple[bytes, bytes] | None:
        while b"\r\n\r\n" not in buffer:
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                if self._stop.is_set():
                    return None
                continue
            if not chunk:
                return None
            buffer += chunk
        head, _, rest = buffer.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            rest += conn.recv(65536)
        request_line = head.split(b"\r\n")[0].decode().split()
        self.requests.append((request_line[0], request_line[1], rest[:length]))
        return head, rest[length:]

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(0.1)
        buffer = b""
        with conn:
            while not self._stop.is_set():
                read = self._read_request(conn, buffer)
                if read is None:
                    return
                buffer = read[1]
                action = self.actions.pop(0) if self.actions else CLOSE
                if action == CLOSE:
                    return
                if action == STALL:
                    self._stop.wait()
                    return
                if action.startswith(RESET):
                    conn.sendall(action[len(RESET) :])
                    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                conn.sendall(action)
                if b"connection: close" in action.split(b"\r\n\r\n")[0].lower():
                    return


@contextmanager
def comment_server(interval: float = 0.05) -> Iterator[str]:
    """An event stream that never sends an event: only `: keep-alive` comments, every `interval` seconds,
    until the client leaves. Yields a base URL."""
    stop = threading.Event()

    def stream(conn: socket.socket) -> None:
        with conn:
            try:
                read_whole_request(conn)
                conn.sendall(sse_head())
                while not stop.wait(interval):
                    conn.sendall(b": keep-alive\n\n")
            except OSError:
                pass  # the client left

    with serving(stream, stop) as port:
        yield f"http://127.0.0.1:{port}/v1"
