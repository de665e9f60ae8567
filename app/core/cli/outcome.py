"""What a command line run ends with: its exit code (the numbers scripts rely on) and what it prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.api.connection import ConnectionSettings


class Exit(IntEnum):
    """The exit codes of `service-console allowlist ...` (README, "The command line")."""

    DONE = 0
    REFUSED_BY_GUARD = 1  # the change would lock this machine out: nothing was changed (--force overrides)
    USAGE = 2  # a wrong argument, an unknown profile, an address that is none, an entry not found
    AUTH = 3  # no admin key, a key refused (401) or not allowed (403, the allowlist included)
    NETWORK = 4  # the service could not be reached, gave no answer in time, or never admitted (--wait)
    CHANGES = 5  # plan: something would change; apply: a list changed since the plan read it (plan again)


class CommandFailed(Exception):
    """A run that ends with an exit code other than 0; the message is one sentence for a person."""

    def __init__(self, code: Exit, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


@dataclass
class Target:
    """The service a run talks to: how to reach it, with which keys, and its name for messages."""

    settings: ConnectionSettings
    org_id: str
    label: str  # the profile's name, or "the environment"
    brand: str = "service"  # the models' prefix: the default prices are named by it


@dataclass
class Outcome:
    """A successful run: lines for a person, and the object `--json` prints instead."""

    lines: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    code: Exit = Exit.DONE  # `plan` ends with CHANGES when something would change


def printable(text: str) -> str:
    """`text` with every character a terminal would act on (escape sequences, other control characters, line
    breaks, bidirectional overrides, spaces other than the ASCII one) written as its Python escape."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
