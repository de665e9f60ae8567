"""A guided rotation from an old allowlist entry to a new one, as the interface document recommends:
add the new entry; confirm requests succeed from the new IP; only then remove the old one.

The plan and its steps live in rotation_plan (Qt-free, unit-tested); this service does the requests of each
step, saves the plan after every one, and says what happened in signals and in the change history.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError, Conflict, IpNotAllowed
from app.core.security.history_rows import Change
from app.core.security.rotation_plan import ListScope, RotationError, RotationPlan, RotationStore, Step
from app.services.security.history import ChangeHistory
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from app.api.admin import Entry
    from app.api.client import ServiceClient

__all__ = ["ListScope", "RotationError", "RotationPlan", "RotationService", "Step"]


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

    def start(self, scope: ListScope, old: Entry, new_text: str, description: str) -> RotationPlan:
        """Validate and save the plan, then add the new entry. Raises RotationError for a bad plan."""
        profile = self.session.profile
        if profile is None:
            raise RotationError("No connection.")
        current = self.plan
        if current is not None and current.step != Step.DONE:
            raise RotationError("A rotation is already in progress for this profile: finish or cancel it.")
        plan = RotationPlan.make(
            profile.id, scope, (old.id, old.cidr, old.description), new_text, description
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
        existing = (await client.allowlists.get(plan.project_id)).with_cidr(plan.new_cidr)
        if existing is None:
            existing, already = (
                await client.allowlists.add(plan.new_cidr, plan.description, plan.project_id),
                False,
            )
        else:
            already = True
        what = plan.new_entry_added(existing.id, already)
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
            plan.new_entry_gone()
            self._saved_probe(plan)
            return
        seen = current.source_ip
        if plan.admits(seen) and self._probes_through_api(plan):
            try:
                await client.models()  # an API request through the whole gateway: organization AND project
            except IpNotAllowed as error:
                self._probe_failed(plan, f"An API request from {error.source_ip or seen} was refused (403).")
                return
        confirmed = plan.probe_seen(seen, self._probes_through_api(plan))
        self.store.save(plan)
        self._record(
            plan,
            f"probe from {seen}: confirmed" if confirmed else "probe",
            "ok" if confirmed else plan.last_probe,
        )

    def _probes_through_api(self, plan: RotationPlan) -> bool:
        profile, client = self.session.profile, self.session.client
        return (
            client is not None
            and client.has_key("api")
            and (plan.project_id is None or (profile is not None and plan.project_id == profile.project_id))
        )

    def _probe_failed(self, plan: RotationPlan, why: str) -> None:
        plan.probe_failed(why)
        self._saved_probe(plan)

    def _saved_probe(self, plan: RotationPlan) -> None:
        self.store.save(plan)
        self._record(plan, "probe", result=plan.last_probe)

    async def _remove_old(self) -> None:
        plan = self._require(Step.CONFIRMED)
        client = self._client()
        current = await client.allowlists.get(plan.project_id)
        if not plan.ready_to_remove(current.source_ip):
            self._saved_probe(plan)
            return
        listed = current.entry(plan.old_id) is not None
        if listed:
            await client.allowlists.remove(plan.old_id, plan.project_id)
        what = plan.old_entry_removed(listed)
        self.store.save(plan)
        self._record(plan, what)

    def _require(self, step: Step) -> RotationPlan:
        plan = self.plan
        if plan is None:
            raise RotationError("No rotation in progress.")
        plan.require(step)
        return plan

    def _run(self, name: str, coroutine: Coroutine[Any, Any, None]) -> None:
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
        self.history.record(profile.name if profile else "", plan.scope_label, Change.ROTATION, what, result)
