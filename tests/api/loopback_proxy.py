"""A small HTTP proxy on loopback for the default test run, where the real ones (mitmproxy, squid: the
`proxies` marker) are not installed: it tunnels CONNECT like squid and forwards plain-HTTP requests whole,
buffering each answer before it sends it on (as mitmproxy does by default); or it answers every request with
one scripted reply (a 407, a 403 page), inside TLS it re-signs itself when given a certificate (an
intercepting proxy's 502), and it counts how often it was asked."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from tests.loopback import serving


@dataclass
class LoopbackProxy:
    url: str
    requests: list[bytes] = field(default_factory=list)  # each request's head, as received


def _pipe(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _read_head(conn: socket.socket) -> bytes:
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            break
        head += chunk
    return head


def _forward_whole(conn: socket.socket, head: bytes) -> None:
    """A plain-HTTP request in absolute form, sent on with `connection: close`; the whole answer read, then
    sent back at once: a buffering proxy."""
    request_line, _, rest = head.partition(b"\r\n")
    method, target, version = request_line.split(b" ")
    url = target.decode().removeprefix("http://")
    address, _, path = url.partition("/")
    host, _, port = address.rpartition(":")
    headers, _, body = rest.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in headers.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ),
        0,
    )
    while len(body) < length:
        body += conn.recv(65536)
    kept = [line for line in headers.split(b"\r\n") if not line.lower().startswith(b"connection")]
    upstream = socket.create_connection((host, int(port)), timeout=120)
    upstream.sendall(
        b" ".join((method, b"/" + path.encode(), version))
        + b"\r\n"
        + b"\r\n".join([*kept, b"connection: close"])
        + b"\r\n\r\n"
        + body
    )
    answer = b""
    while data := upstream.recv(65536):
        answer += data
    upstream.close()
    conn.sendall(answer)


@contextmanager
def loopback_proxy(reply: bytes | None = None, tls: ssl.SSLContext | None = None) -> Iterator[LoopbackProxy]:
    """reply=None: a tunnelling proxy (CONNECT host:port -> 200, then bytes both ways) that forwards plain
    HTTP whole. Otherwise every request gets `reply` and the connection closes; with `tls`, a CONNECT is
    accepted and `reply` is the answer inside TLS made with that context (an intercepting proxy)."""
    proxy = LoopbackProxy("")
    threads: list[threading.Thread] = []

    def handle(conn: socket.socket) -> None:
        conn.settimeout(10)
        if conn.recv(1, socket.MSG_PEEK) == b"\x16":  # a TLS handshake, as to an https:// proxy: squid's 400
            proxy.requests.append(conn.recv(4096))
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            conn.close()
            return
        head = _read_head(conn)
        proxy.requests.append(head)
        if reply is not None and tls is not None and head.startswith(b"CONNECT "):
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            with tls.wrap_socket(conn, server_side=True) as inner:
                _read_head(inner)
                inner.sendall(reply)
            return
        if reply is None and not head.startswith(b"CONNECT "):
            try:
                _forward_whole(conn, head)
            finally:
                conn.close()
            return
        if reply is not None:
            try:
                conn.sendall(reply)
            finally:
                conn.close()
            return
        host, _, port = head.split(b" ")[1].decode().rpartition(":")
        try:
            upstream = socket.create_connection((host, int(port)), timeout=10)
        except OSError:
            conn.sendall(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            conn.close()
            return
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        conn.settimeout(None)
        upstream.settimeout(None)
        back = threading.Thread(target=_pipe, args=(upstream, conn), daemon=True)
        back.start()
        _pipe(conn, upstream)
        back.join(timeout=5)
        conn.close()
        upstream.close()

    def start(conn: socket.socket) -> None:  # each connection on a thread of its own (tunnels are long)
        thread = threading.Thread(target=handle, args=(conn,), daemon=True)
        threads.append(thread)
        thread.start()

    try:
        with serving(start, backlog=16, poll=0.1) as port:
            proxy.url = f"http://127.0.0.1:{port}"
            yield proxy
    finally:
        for thread in threads:
            thread.join(timeout=5)


def page(status: str, text: str, extra: str = "") -> bytes:
    body = f"<html><body><h1>{status}</h1><p>{text}</p></body></html>".encode()
    return (
        f"HTTP/1.1 {status}\r\ncontent-type: text/html\r\ncontent-length: {len(body)}\r\n{extra}"
        "connection: close\r\n\r\n"
    ).encode() + body


@contextmanager
def silent_proxy() -> Iterator[LoopbackProxy]:
    """A proxy that accepts each connection, reads the CONNECT and never answers it (until the block ends)."""
    proxy = LoopbackProxy("")
    done = threading.Event()
    held: list[socket.socket] = []

    def handle(conn: socket.socket) -> None:
        held.append(conn)
        conn.settimeout(10)
        proxy.requests.append(_read_head(conn))

    try:
        with serving(
            lambda conn: threading.Thread(target=handle, args=(conn,), daemon=True).start(), done
        ) as port:
            proxy.url = f"http://127.0.0.1:{port}"
            yield proxy
    finally:
        for conn in held:
            conn.close()
