"""What the tests' own peers share: a port on loopback, a listener whose connections a thread accepts until
the peer is done, and stopping a peer's process (tests/api, tests/peers, tests/proxies)."""

from __future__ import annotations

import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


def free_port() -> int:
    """A port free on 127.0.0.1 now, for a peer that must be told its port before it starts."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(
    handle: Callable[[socket.socket], None],
    stop: threading.Event | None = None,
    backlog: int = 8,
    poll: float = 0.2,
) -> Iterator[int]:
    """Listen on 127.0.0.1 and hand each connection to `handle`, on one thread, until the block ends (or
    `stop` is set); yields the port. `handle` owns the connection (closes it, or gives it to a thread)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(backlog)
    stopping = stop or threading.Event()

    def accept() -> None:
        listener.settimeout(poll)  # wakes to see `stopping`
        while not stopping.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:  # the listener was closed
                return
            handle(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stopping.set()
        listener.close()
        thread.join(timeout=2)


def stop_process(process: subprocess.Popen[bytes] | subprocess.Popen[str], timeout: float = 10) -> None:
    """Ask a peer's process to end; kill it if it has not within `timeout` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
