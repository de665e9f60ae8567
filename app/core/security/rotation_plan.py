"""The rotation plan without Qt: its steps, the moves between them, and the file that keeps plans across runs.

A rotation goes PLANNED → ADDED → CONFIRMED → DONE; the old entry may be removed only from CONFIRMED, which
only a probe seen inside the new entry reaches. The plans are read from their file once and kept in memory;
every change is written through atomically (one JSON file in the data directory, no keys in it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from app.core.security.progress_file import ProgressFile
from app.netrules import EntryError, canonical, parse_address, parse_entry

log = logging.getLogger(__name__)


class Step(StrEnum):
    PLANNED = "planned"  # saved, the new entry not yet on the list
    ADDED = "added"  # the new entry is on the list; waiting for a probe from the new IP
    CONFIRMED = "confirmed"  # a probe came from inside the new entry and succeeded
    DONE = "done"  # the old entry is gone


ORDER = tuple(Step)


@dataclass(frozen=True)
class ListScope:
    """Which list: the organization's (`project_id` None) or a project's, and how to name it."""

    project_id: str | None
    label: str


class RotationError(Exception):
    """A plan that cannot be made, or a step that is not due."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class RotationPlan:
    profile_id: str
    project_id: str | None  # None: the organization's list
    scope_label: str
    old_id: str
    old_cidr: str
    new_cidr: str
    description: str = ""
    new_id: str | None = None
    step: Step = Step.PLANNED
    last_probe: str = ""
    started_at: str = ""
    updated_at: str = ""

    @classmethod
    def make(
        cls,
        profile_id: str,
        scope: ListScope,
        old: tuple[str, str, str],
        new_text: str,
        description: str,
    ) -> RotationPlan:
        """A new plan for the list `scope`; `old` is the old entry's (id, cidr, description)."""
        try:
            new_cidr = canonical(parse_entry(new_text))
        except EntryError as error:
            raise RotationError(error.message) from None
        old_id, old_cidr, old_description = old
        if new_cidr == old_cidr:
            raise RotationError("The new entry is the same as the old one.")
        return cls(
            profile_id, scope.project_id, scope.label, old_id, old_cidr, new_cidr, description or old_description,
            started_at=now(),
        )  # fmt: skip

    @property
    def step_number(self) -> int:
        return ORDER.index(self.step) + 1

    def summary(self) -> str:
        return f"{self.old_cidr} → {self.new_cidr} ({self.scope_label})"

    def admits(self, source_ip: str | None) -> bool:
        """Whether the address the service saw lies inside the new entry."""
        return (
            source_ip is not None
            and source_ip != ""
            and parse_address(source_ip) in parse_entry(self.new_cidr)
        )

    def require(self, step: Step) -> None:
        if self.step != step:
            raise RotationError(f"This step is not due: the rotation is at “{self.step}”.")

    # -- the moves (each says what happened, for the history) -------------------------------------

    def new_entry_added(self, entry_id: str, already_listed: bool) -> str:
        self.require(Step.PLANNED)
        self.new_id, self.step, self.last_probe = entry_id, Step.ADDED, ""
        if already_listed:
            return f"the new entry {self.new_cidr} was already on the list ({entry_id})"
        return f"added the new entry {self.new_cidr}"

    def probe_failed(self, why: str) -> None:
        self.last_probe = why

    def new_entry_gone(self) -> None:
        """The new entry was removed elsewhere: back to adding it."""
        self.require(Step.ADDED)
        self.step, self.new_id = Step.PLANNED, None
        self.last_probe = f"The new entry {self.new_cidr} is no longer on the list: add it again."

    def probe_seen(self, seen: str | None, through_api: bool) -> bool:
        """A probe's read of the list saw the caller at `seen`: confirmed when inside the new entry."""
        self.require(Step.ADDED)
        if not self.admits(seen):
            self.last_probe = (
                f"The service sees you at {seen or 'an unknown IP'}, which is outside the new entry "
                f"{self.new_cidr}. Make requests from the new address (move this machine to the new network; "
                "for the local sandbox, play an address of the new entry), then probe again."
            )
            return False
        self.step = Step.CONFIRMED
        self.last_probe = f"Confirmed at {now()}: the service saw you at {seen}, inside {self.new_cidr}" + (
            ", and an API request succeeded." if through_api else ", and an Admin API request succeeded."
        )
        return True

    def ready_to_remove(self, seen: str | None) -> bool:
        """Before the old entry goes: still seen inside the new one? If not, back to probing."""
        self.require(Step.CONFIRMED)
        if self.admits(seen):
            return True
        self.step = Step.ADDED
        self.last_probe = (
            f"The service now sees you at {seen or 'an unknown IP'}, outside {self.new_cidr}: "
            "probe again from the new address before the old entry goes."
        )
        return False

    def old_entry_removed(self, was_listed: bool) -> str:
        self.require(Step.CONFIRMED)
        self.step = Step.DONE
        if was_listed:
            return f"removed the old entry {self.old_cidr}"
        return f"the old entry {self.old_cidr} had already been removed elsewhere"


def _plan_from(raw: Any) -> RotationPlan | None:
    if not isinstance(raw, dict):
        return None
    names = {f.name for f in fields(RotationPlan)}
    try:
        plan = RotationPlan(**{k: v for k, v in raw.items() if k in names})
        plan.step = Step(plan.step)
    except (TypeError, ValueError):
        return None
    return plan


class RotationStore(ProgressFile[RotationPlan]):
    """The plans in progress, one per profile: read from their file once, kept in memory, written through."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, _plan_from, "rotation progress")

    def save(self, plan: RotationPlan) -> None:
        plan.updated_at = now()
        super().save(plan)
