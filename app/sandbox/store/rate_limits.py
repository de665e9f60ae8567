"""The projects' rate limits: requests and tokens per minute for the whole project (model "") and per model,
kept in the store and in memory, and the one-minute windows the gateway counts them in.

A window is a fixed minute of the store's clock (as the x-ratelimit-* headers describe it). Requests are
taken when the gateway admits one; tokens are spent when an answer finishes (its own usage), so a project
over its tokens is refused from its next request until the minute ends, as the hosted service does once a
limit is reached.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from typing import Any, NamedTuple

from app.sandbox.store.audit import AuditRecord, insert
from app.sandbox.store.database import Database

PROJECT = ""  # the model name of the limit on a project's requests to every model together


@dataclass(frozen=True)
class RateLimit:
    """A project's limit on one model (or on all, `model` ""); None: no limit on that count."""

    project_id: str
    model: str
    max_requests_per_1_minute: int | None = None
    max_tokens_per_1_minute: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "object": "project.rate_limit",
            "id": f"rl-{self.model}" if self.model else "rl-project",
            "model": self.model or None,
            "max_requests_per_1_minute": self.max_requests_per_1_minute,
            "max_tokens_per_1_minute": self.max_tokens_per_1_minute,
        }


class Verdict(NamedTuple):
    """What the tightest limit that applies says: whether the request may go, and its header values."""

    allowed: bool
    which: str  # "requests" or "tokens": what ran out (when not allowed)
    limit: RateLimit
    requests: tuple[int, int] | None  # (limit, remaining) when the limit counts requests
    tokens: tuple[int, int] | None  # (limit, remaining) when it counts tokens
    reset: float  # seconds until the window ends


class _Window:
    __slots__ = ("requests", "start", "tokens")

    def __init__(self, start: int) -> None:
        self.start = start
        self.requests = 0
        self.tokens = 0


class RateLimits:
    """Every project's limits (read once, changed through `set`), and their windows."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._lock = threading.Lock()
        self.by_project: dict[str, dict[str, RateLimit]] = {}
        self._windows: dict[tuple[str, str], _Window] = {}
        for row in database.read(lambda db: db.execute("SELECT * FROM rate_limits").fetchall()):
            limit = RateLimit(*row)
            self.by_project.setdefault(limit.project_id, {})[limit.model] = limit

    def of(self, project_id: str) -> list[RateLimit]:
        return list(self.by_project.get(project_id, {}).values())

    async def set(self, limit: RateLimit, audit: AuditRecord) -> RateLimit:
        """Store `limit` (a limit of None on both counts removes it) and its audit event, together."""
        now = self._database.now()
        empty = limit.max_requests_per_1_minute is None and limit.max_tokens_per_1_minute is None

        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "DELETE FROM rate_limits WHERE project_id = ? AND model = ?", (limit.project_id, limit.model)
            )
            if not empty:
                db.execute(
                    "INSERT INTO rate_limits VALUES (?, ?, ?, ?)",
                    (
                        limit.project_id,
                        limit.model,
                        limit.max_requests_per_1_minute,
                        limit.max_tokens_per_1_minute,
                    ),
                )
            insert(db, audit, now)

        await self._database.write(work)
        with self._lock:
            limits = dict(self.by_project.get(limit.project_id, {}))
            if empty:
                limits.pop(limit.model, None)
            else:
                limits[limit.model] = limit
            self.by_project[limit.project_id] = (
                limits  # replaced whole: the gateway reads it without the lock
            )
        return limit

    def _window(self, project_id: str, model: str, now: int) -> _Window:
        start = now - now % 60
        window = self._windows.get((project_id, model))
        if window is None or window.start != start:
            window = self._windows[project_id, model] = _Window(start)
        return window

    def take(self, project_id: str, model: str, now: float) -> Verdict | None:
        """Count one request on the project's limits that apply to `model` when all allow it; the verdict
        of the one with the fewest requests (or tokens) left, None when the project has no limit."""
        limits = self.by_project.get(project_id)
        if not limits:
            return None
        applying = [limit for name, limit in limits.items() if name in (PROJECT, model)]
        if not applying:
            return None
        second = int(now)
        reset = 60 - now % 60
        with self._lock:
            windows = [(limit, self._window(project_id, limit.model, second)) for limit in applying]
            verdicts = [_verdict(limit, window, reset) for limit, window in windows]
            refused = next((verdict for verdict in verdicts if not verdict.allowed), None)
            if refused is not None:
                return refused
            for _, window in windows:
                window.requests += 1
        chosen = min(verdicts, key=_left)
        requests = chosen.requests
        return chosen._replace(requests=(requests[0], requests[1] - 1) if requests else None)

    def spend(self, project_id: str, model: str, tokens: int, now: float) -> None:
        """Count an answer's tokens on the windows of the project's limits that apply to its model."""
        limits = self.by_project.get(project_id)
        if not limits:
            return
        with self._lock:
            for name in (PROJECT, model):
                if name in limits:
                    self._window(project_id, name, int(now)).tokens += tokens


def _verdict(limit: RateLimit, window: _Window, reset: float) -> Verdict:
    most_requests, most_tokens = limit.max_requests_per_1_minute, limit.max_tokens_per_1_minute
    requests = None if most_requests is None else (most_requests, max(0, most_requests - window.requests))
    tokens = None if most_tokens is None else (most_tokens, max(0, most_tokens - window.tokens))
    if requests is not None and requests[1] == 0:
        return Verdict(False, "requests", limit, requests, tokens, reset)
    if tokens is not None and tokens[1] == 0:
        return Verdict(False, "tokens", limit, requests, tokens, reset)
    return Verdict(True, "", limit, requests, tokens, reset)


def _left(verdict: Verdict) -> int:
    return verdict.requests[1] if verdict.requests is not None else 1 << 62
