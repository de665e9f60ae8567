"""The states a turn goes through and the kinds of error that end one: the names the Playground's widgets
need from the first frame, in a module of their own. `turns` (its dataclasses, the request bodies and the
schema check behind them, ~8 ms of imports) loads with the first turn, not with the launch."""

from __future__ import annotations

from enum import StrEnum


class TurnStatus(StrEnum):
    PENDING = "pending"
    STREAMING = "streaming"
    WAITING = "waiting"  # rate limited: counting down the server's Retry-After before trying again
    CALLING = "calling"  # the model called functions: waiting for the person (or the saved outputs)
    COMPLETED = "completed"
    INCOMPLETE = "incomplete"
    FAILED = "failed"
    STOPPED = "stopped"


# A turn whose request is on its way: sent, streaming, or waiting out a 429 before it is sent again.
RUNNING = frozenset({TurnStatus.PENDING, TurnStatus.STREAMING, TurnStatus.WAITING})


class ErrorKind(StrEnum):
    NONE = ""
    BLOCKED = "blocked"
    UNAUTHORIZED = "unauthorized"
    RATE_LIMITED = "rate_limited"
    CONNECTION = "connection"
    OTHER = "other"


# Model calls answered within one turn before the console stops asking (the Functions panel's default).
DEFAULT_MAX_ROUNDS = 5
