"""A key rotation's plan without Qt: its steps, when the old key counts as quiet, and the file that keeps the
plans across runs (one per profile; ids, names and times only, never a key's value).

CREATED (the successor exists; this console switched to it at once if it used the old key; copies go to the
others) → QUIET (the old key went unused for the chosen period since the successor was made) → DONE (the
old key is revoked). The old key may be revoked only from QUIET, which only a read of its `last_used_at`
reaches; a use seen after that sends the plan back to CREATED.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields
from enum import StrEnum
from pathlib import Path
from typing import Any

from app.core.security.key_views import ago
from app.core.security.progress_file import ProgressFile

log = logging.getLogger(__name__)


class KeyStep(StrEnum):
    CREATED = "created"  # the successor exists; waiting for the old key to go quiet
    QUIET = "quiet"  # the old key was not used for the chosen period: it may be revoked
    DONE = "done"  # the old key is revoked


class KeyRotationError(Exception):
    """A plan that cannot be made, or a step that is not due."""


@dataclass
class KeyRotationPlan:
    profile_id: str
    project_id: str | None  # None: an admin key
    old_id: str
    old_name: str
    new_id: str
    created_at: int  # the successor's creation: the quiet period counts from here at the earliest
    quiet_seconds: int
    switched_console: bool = False  # this console's profile used the old key and now uses the new one
    old_last_used_at: int | None = None  # as last read
    status: str = ""
    step: KeyStep = KeyStep.CREATED

    @property
    def step_text(self) -> str:
        return {
            KeyStep.CREATED: "step 2 of 3, waiting for the old key to go quiet",
            KeyStep.QUIET: "step 3 of 3, the old key is quiet and can be revoked",
            KeyStep.DONE: "done, the old key is revoked",
        }[self.step]

    def quiet_left(self, now: float) -> float:
        """Seconds until the old key counts as quiet (0: it is)."""
        since = max(self.old_last_used_at or 0, self.created_at)
        return max(0.0, since + self.quiet_seconds - now)

    def old_key_read(self, last_used_at: int | None, now: float) -> bool:
        """A read of the old key's `last_used_at`; True when it has just gone quiet."""
        if self.step == KeyStep.DONE:
            raise KeyRotationError("The rotation is finished.")
        used_again = last_used_at is not None and last_used_at > max(
            self.created_at, self.old_last_used_at or 0
        )
        self.old_last_used_at = last_used_at
        used = f"last used {ago(last_used_at, now)}"
        left = self.quiet_left(now)
        if left > 0:
            self.step = KeyStep.CREATED
            wait = f"{int(left // 60)} min {int(left % 60)} s" if left >= 60 else f"{int(left)} s"
            again = " It is still in use since the successor was made." if used_again else ""
            self.status = f"The old key was {used}.{again} Quiet for long enough in {wait}."
            return False
        became = self.step != KeyStep.QUIET
        self.step = KeyStep.QUIET
        self.status = f"The old key was {used}: quiet for the chosen period. It can be revoked."
        return became

    def require_quiet(self) -> None:
        if self.step != KeyStep.QUIET:
            raise KeyRotationError("The old key has not been quiet for the chosen period yet.")

    def revoked(self) -> None:
        self.require_quiet()
        self.step = KeyStep.DONE
        self.status = f"The old key {self.old_name} ({self.old_id}) is revoked."


def _plan_from(raw: Any) -> KeyRotationPlan | None:
    if not isinstance(raw, dict):
        return None
    names = {f.name for f in fields(KeyRotationPlan)}
    try:
        plan = KeyRotationPlan(**{k: v for k, v in raw.items() if k in names})
        plan.step = KeyStep(plan.step)
    except (TypeError, ValueError):
        return None
    return plan


class KeyRotationStore(ProgressFile[KeyRotationPlan]):
    """The key rotations in progress, one per profile: read once, kept in memory, written through."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, _plan_from, "key rotation progress")
