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


# Past this wait for the first token, a turn through a proxy says the proxy may be holding the answer back.
PROXY_NOTE_AFTER_S = 5


def waiting_text(seconds: float, proxy: str = "") -> str:
    """The line of a turn waiting for its first token: the time waited, and through a proxy after a few
    seconds, that a proxy that buffers sends nothing until the whole answer is there."""
    if seconds < 1:
        return "Waiting for the first token…"
    text = f"Waiting for the first token… {seconds:,.0f} s"
    if proxy and seconds >= PROXY_NOTE_AFTER_S:
        text += f". The proxy {proxy} may be holding the answer back until it is whole"
    return text + "."


# Model calls answered within one turn before the console stops asking (the Functions panel's default).
DEFAULT_MAX_ROUNDS = 5
