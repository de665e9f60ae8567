"""The rate limit per key: a fixed one-minute window, as the x-ratelimit-* headers describe it."""

from __future__ import annotations

import threading
import time


class _Window:
    """A key's current window, counted in place: no tuple made and stored again on every request."""

    __slots__ = ("start", "used")

    def __init__(self, start: float) -> None:
        self.start = start
        self.used = 0


class RateLimiter:
    """A fixed one-minute window per key: simple, and what the x-ratelimit-* headers describe."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._windows: dict[str, _Window] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> tuple[bool, int, float]:
        """Returns (allowed, remaining, seconds until the window resets)."""
        now = time.monotonic()
        with self._lock:
            window = self._windows.get(key)
            if window is None or now - window.start >= 60:
                window = self._windows[key] = _Window(now)
            used = window.used
            reset = 60 - (now - window.start)  # more than 0: the window is younger than a minute
            if used >= self.per_minute:
                return False, 0, reset
            window.used = used + 1
            return True, self.per_minute - used - 1, reset
