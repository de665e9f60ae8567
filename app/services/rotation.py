"""A guided rotation from an old allowlist entry to a new one, as the interface document recommends:
add the new entry; confirm requests succeed from the new IP; only then remove the old one.

The plan is saved after every step (one JSON file in the data directory, no keys in it), so a person can
close the console, move to the new network, open it again and go on. The old entry is never removed
before a probe has confirmed that the service sees this machine inside the new entry.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError, Conflict, IpNotAllowed
from app.netrules import EntryError, canonical, parse_address, parse_entry

from .history import ChangeHistory
from .session import ConsoleSession

if TYPE_CHECKING:
    from app.api.admin import Entry
    from app.api.client import ServiceClient

log = logging.getLogger(__name__)


class Step:
    PLANNED = "planned"  # saved, the new entry not yet on the list
    ADDED = "added"  # the new entry is on the list; waiting for a probe from the new IP
    CONFIRMED = "confirmed"  # a probe came from inside the new entry and succeeded
    DONE = "done"  # the old entry is gone

    ORDER = (PLANNED, ADDED, CONFIRMED, DONE)


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
    step: str = Step.PLANNED
    last_probe: str = ""
    started_at: str = ""
    updated_at: str = ""

    @property
    def step_number(self) -> int:
        return Step.ORDER.index(self.step) + 1

    def summary(self) -> str:
        return f"{self.old_cidr} → {self.new_cidr} ({self.scope_label})"

    def admits(self, source_ip: str | None) -> bool:
        """Whether the address the service saw lies inside the new entry."""
        return bool(source_ip) and parse_address(source_ip) in parse_entry(self.new_cidr)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RotationStore:
    """The plans in progress, one per profile, in a JSON file written atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _read(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("rotation progress unreadable: %s", error)
            return {}

    def load(self, profile_id: str) -> RotationPlan | None:
        raw = self._read().get(profile_id)
        if not isinstance(raw, dict):
            return None
        names = {f.name for f in fields(RotationPlan)}
        try:
            return RotationPlan(**{k: v for k, v in raw.items() if k in names})
        except TypeError:
            return None

    def save(self, plan: RotationPlan) -> None:
        data = self._read()
        plan.updated_at = _now()
        data[plan.profile_id] = asdict(plan)
        self._write(data)

    def discard(self, profile_id: str) -> None:
        data = self._read()
        if data.pop(profile_id, None) is not None:
            self._write(data)

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        with temporary.open("w", encoding="utf-8") as file:
            json.dump(data, file, indent=2)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)


class RotationError(Exception):
    pass


class RotationService(QObject):
    changed = Signal()  # the plan (or its absence) changed
    failed = Signal(str)
    busy = Signal(bool)

    def __init__(
        self, session: ConsoleSession, history: ChangeHistory, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.history = history
        self.store = RotationStore(session.data_dir / "rotations.json")

    @property
    def plan(self) -> RotationPlan | None:
        profile = self.session.profile
        return self.store.load(profile.id) if profile else None

    # -- steps ------------------------------------------------------------------------------------

    def start(
        self, project_id: str | None, scope_label: str, old: Entry, new_text: str, description: str
    ) -> RotationPlan:
        """Validate and save the plan, then add the new entry. Raises RotationError for a bad plan."""
        profile = self.session.profile
        if profile is None:
            raise RotationError("No connection.")
        current = self.plan
        if current is not None and current.step != Step.DONE:
            raise RotationError("A rotation is already in progress for this profile: finish or cancel it.")
        try:
            new_cidr = canonical(parse_entry(new_text))
        except EntryError as error:
            raise RotationError(error.message) from None
        if new_cidr == old.cidr:
            raise RotationError("The new entry is the same as the old one.")
        plan = RotationPlan(
            profile.id,
            project_id,
            scope_label,
            old.id,
            old.cidr,
            new_cidr,
            description or old.description,
            started_at=_now(),
        )
        self.store.save(plan)
        self._record(plan, f"started: {plan.old_cidr} → {plan.new_cidr}")
        self.changed.emit()
        self.add_new()
        return plan

    def add_new(self) -> None:
        self._run("add", self._add_new())

    def probe(self) -> None:
        self._run("probe", self._probe())

    def remove_old(self) -> None:
        self._run("remove", self._remove_old())

    def cancel(self) -> None:
        plan = self.plan
        if plan is None:
            return
        self.store.discard(plan.profile_id)
        kept = f"; {plan.new_cidr} stays on the list" if plan.new_id else ""
        self._record(plan, f"cancelled at step {plan.step_number}: {plan.old_cidr} stays on the list{kept}")
        self.changed.emit()

    def finish(self) -> None:
        """Forget a finished plan (the dialog closes on it)."""
        plan = self.plan
        if plan is not None and plan.step == Step.DONE:
            self.store.discard(plan.profile_id)
            self.changed.emit()

    # -- the work ---------------------------------------------------------------------------------

    def _client(self) -> ServiceClient:
        client = self.session.client
        if client is None:
            raise RotationError("No connection.")
        return client

    async def _add_new(self) -> None:
        plan = self._require(Step.PLANNED)
        client = self._client()
        current = await client.allowlists.get(plan.project_id)
        existing = current.with_cidr(plan.new_cidr)
        if existing is None:
            existing = await client.allowlists.add(plan.new_cidr, plan.description, plan.project_id)
            what = f"added the new entry {plan.new_cidr}"
        else:
            what = f"the new entry {plan.new_cidr} was already on the list ({existing.id})"
        plan.new_id, plan.step = existing.id, Step.ADDED
        plan.last_probe = ""
        self.store.save(plan)
        self._record(plan, what)

    async def _probe(self) -> None:
        plan = self._require(Step.ADDED)
        client = self._client()
        try:
            current = await client.allowlists.get(plan.project_id)
        except IpNotAllowed as error:
            self._probe_failed(
                plan,
                f"Requests are refused: the service sees you at {error.source_ip or 'an unknown IP'}, "
                "which the organization's list does not admit.",
            )
            return
        if not any(e.id == plan.new_id or e.cidr == plan.new_cidr for e in current.entries):
            plan.step, plan.new_id = Step.PLANNED, None
            self._probe_failed(plan, f"The new entry {plan.new_cidr} is no longer on the list: add it again.")
            return
        seen = current.source_ip
        if not plan.admits(seen):
            self._probe_failed(
                plan,
                f"The service sees you at {seen or 'an unknown IP'}, which is outside the new entry "
                f"{plan.new_cidr}. Make requests from the new address (move this machine to the new network; "
                "for the local sandbox, play an address of the new entry), then probe again.",
            )
            return
        profile = self.session.profile
        through_api = client.has_key("api") and (
            plan.project_id is None or (profile is not None and plan.project_id == profile.project_id)
        )
        if through_api:
            try:
                await client.models()  # an API request through the whole gateway: organization AND project
            except IpNotAllowed as error:
                self._probe_failed(plan, f"An API request from {error.source_ip or seen} was refused (403).")
                return
        plan.step = Step.CONFIRMED
        plan.last_probe = f"Confirmed at {_now()}: the service saw you at {seen}, inside {plan.new_cidr}" + (
            ", and an API request succeeded." if through_api else ", and an Admin API request succeeded."
        )
        self.store.save(plan)
        self._record(plan, f"probe from {seen}: confirmed")

    def _probe_failed(self, plan: RotationPlan, why: str) -> None:
        plan.last_probe = why
        self.store.save(plan)
        self._record(plan, "probe", result=why)

    async def _remove_old(self) -> None:
        plan = self._require(Step.CONFIRMED)
        client = self._client()
        current = await client.allowlists.get(plan.project_id)
        seen = current.source_ip
        if not plan.admits(seen):
            plan.step = Step.ADDED
            self._probe_failed(
                plan,
                f"The service now sees you at {seen or 'an unknown IP'}, outside {plan.new_cidr}: "
                "probe again from the new address before the old entry goes.",
            )
            return
        if current.entry(plan.old_id) is not None:
            await client.allowlists.remove(plan.old_id, plan.project_id)
            what = f"removed the old entry {plan.old_cidr}"
        else:
            what = f"the old entry {plan.old_cidr} had already been removed elsewhere"
        plan.step = Step.DONE
        self.store.save(plan)
        self._record(plan, what)

    def _require(self, step: str) -> RotationPlan:
        plan = self.plan
        if plan is None:
            raise RotationError("No rotation in progress.")
        if plan.step != step:
            raise RotationError(f"This step is not due: the rotation is at “{plan.step}”.")
        return plan

    def _run(self, name: str, coroutine: Any) -> None:
        async def wrapped() -> None:
            self.busy.emit(True)
            try:
                await coroutine
            except (RotationError, Conflict, ApiError) as error:
                message = error.message if isinstance(error, Conflict) else str(error)
                plan = self.plan
                if plan is not None:
                    self._record(plan, name, result=message)
                self.failed.emit(message)
            finally:
                self.busy.emit(False)
                self.changed.emit()

        self.session.tasks.start(f"rotation.{name}", wrapped())

    def _record(self, plan: RotationPlan, what: str, result: str = "ok") -> None:
        profile = self.session.profile
        self.history.record(profile.name if profile else "", plan.scope_label, "rotation", what, result)
