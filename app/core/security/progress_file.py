"""Progress kept across restarts, one plan per profile, in a JSON file: read once, kept in memory, written
through (atomically) at every change. The IP rotation and the key rotation keep theirs so."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from app.common.fileio import write_atomically

log = logging.getLogger(__name__)


class ProfilePlan(Protocol):
    """A plan of one profile's: a dataclass with the profile's id."""

    profile_id: str


P = TypeVar("P", bound=ProfilePlan)


class ProgressFile(Generic[P]):
    """The plans in progress, by profile id. `plan_from` turns one stored object back into a plan, or None
    for one that cannot be (left out); `what` names the file in the log when it is unreadable."""

    def __init__(self, path: Path, plan_from: Callable[[Any], P | None], what: str) -> None:
        self.path = path
        self._plan_from = plan_from
        self._what = what
        self._plans: dict[str, P] | None = None

    def _loaded(self) -> dict[str, P]:
        if self._plans is None:
            self._plans = {}
            for profile_id, raw in self._read().items():
                plan = self._plan_from(raw)
                if plan is not None:
                    self._plans[profile_id] = plan
        return self._plans

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("%s unreadable: %s", self._what, error)
            return {}
        return data if isinstance(data, dict) else {}

    def load(self, profile_id: str) -> P | None:
        return self._loaded().get(profile_id)

    def save(self, plan: P) -> None:
        self._loaded()[plan.profile_id] = plan
        self._write()

    def discard(self, profile_id: str) -> None:
        if self._loaded().pop(profile_id, None) is not None:
            self._write()

    def _write(self) -> None:
        data = {profile_id: asdict(plan) for profile_id, plan in self._loaded().items()}  # type: ignore[call-overload]
        write_atomically(self.path, json.dumps(data, indent=2))
