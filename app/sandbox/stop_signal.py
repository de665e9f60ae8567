"""Waiting for the signal that stops `serve` (SIGTERM, or SIGINT from Ctrl+C), whichever thread it lands on.

The kernel hands a process's signal to any of its threads. Python's handler runs only in the main thread, at
its next bytecode: when the signal lands on one of the server's threads while the main thread sleeps in a lock
(an `Event.wait()`), nothing wakes the main thread and the server never stops (seen: 1 start in ~100 on two
busy cores). Setting an Event from the handler has a second trap: the handler may run inside `Event.wait()`
itself, while the main thread holds the Event's lock, and `set()` then waits on that lock forever.

So the handler does nothing in Python: the interpreter's C-level handler writes the signal's number to a
socket (`signal.set_wakeup_fd`) from whichever thread it ran in, and the main thread waits by reading that
socket. A socket pair rather than a pipe, because Windows takes only a socket there.
"""

from __future__ import annotations

import signal
import socket
from types import FrameType

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _noted(number: int, frame: FrameType | None) -> None:
    """The Python-level handler: the wakeup socket already carries the news; this only replaces the
    default action (the end of the process, or KeyboardInterrupt) with nothing."""


class StopSignal:
    """Listens from construction (install it before telling anyone the server is up: they may signal at
    once); `wait()` returns once a stop signal has arrived, before or during the wait."""

    def __init__(self) -> None:
        self._reader, self._writer = socket.socketpair()
        self._writer.setblocking(False)  # the C handler must never block on a full buffer
        self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        self._previous = {number: signal.signal(number, _noted) for number in STOP_SIGNALS}

    def wait(self) -> None:
        stops = {int(number) for number in STOP_SIGNALS}
        while not stops.intersection(self._reader.recv(64)):  # each byte is one signal's number
            pass

    def close(self) -> None:
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        signal.set_wakeup_fd(self._previous_fd)
        self._reader.close()
        self._writer.close()

    def __enter__(self) -> StopSignal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
