"""A guided key rotation, as the address rotation is guided: the successor is made and put where the old key
is used (this console's profile at once; a copy for the others), then the old key's `last_used_at` is
watched and, once it has been quiet for the chosen period, the old key may be revoked. And "this key
leaked": successor, switch and revocation in one step, with what the old key did since it was made.

The plan lives in key_rotation_plan (Qt-free); this service does the requests, saves the plan after each
step (progress survives a restart; the successor's value does not, it is in the keychain or with whoever
was given a copy), and checks the old key every `poll_ms` while a rotation waits.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.common.secrets import KeychainUnavailable
from app.core.security.key_rotation_plan import KeyRotationError, KeyRotationPlan, KeyRotationStore, KeyStep
from app.core.security.key_views import ago, date_text, successor_name
from app.services.security.keys import CreatedKey, KeysService

if TYPE_CHECKING:
    from app.api.keys import ApiKey

__all__ = ["KeyRotationError", "KeyRotationPlan", "KeyRotationService", "KeyStep", "LeakReport"]
POLL_MS = 30_000


@dataclass(frozen=True)
class LeakReport:
    """What the old key did since it was made, as the service counted it, and what replaced it."""

    old: ApiKey
    successor: CreatedKey
    switched_console: bool
    changes: tuple[str, ...]  # audit log events made with the old key (admin keys), newest first

    def text(self, now: float) -> str:
        old = self.old
        counted = "not counted by this service" if old.request_count is None else f"{old.request_count:,}"
        lines = [
            f"{old.name} ({old.id}) is revoked; {self.successor.key.name} ({self.successor.key.id}) replaces it"
            + (" and this console uses it now." if self.switched_console else "."),
            f"Since it was made ({date_text(old.created_at)}), the service counted these requests with it: "
            f"{counted}; last used {ago(old.last_used_at, now)}"
            + (f" ({date_text(old.last_used_at)})." if old.last_used_at else "."),
        ]
        if self.changes:
            lines.append("Changes made with it (audit log):")
            lines += [f"  {change}" for change in self.changes]
        elif old.kind == "admin":
            lines.append("The audit log shows no change made with it.")
        return "\n".join(lines)


class KeyRotationService(QObject):
    changed = Signal()  # the plan (or its absence) changed
    successor_made = Signal(CreatedKey)  # its value, to show once
    leak_handled = Signal(LeakReport)
    failed = Signal(str)

    def __init__(self, keys: KeysService, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.keys = keys
        self.session = keys.session
        self.store = KeyRotationStore(self.session.data_dir / "key-rotations.json")
        self.clock: Callable[[], float] = time.time  # Unix seconds; tests move it past a quiet period
        self.poll = QTimer(self, interval=POLL_MS)
        self.poll.timeout.connect(self.check)
        self.changed.connect(self._poll_while_waiting)
        # A rotation kept from an earlier run is watched again as soon as its profile is connected.
        self.session.client_changed.connect(self.check)

    @property
    def plan(self) -> KeyRotationPlan | None:
        profile = self.session.profile
        return self.store.load(profile.id) if profile else None

    def start(self, old: ApiKey, quiet_seconds: int) -> None:
        """Make the successor (same name and permissions); switch this console to it if it used the old one."""
        profile = self.session.profile
        current = self.plan
        if profile is None:
            raise KeyRotationError("No connection.")
        if current is not None and current.step != KeyStep.DONE:
            raise KeyRotationError(
                "A key rotation is already in progress for this profile: finish or cancel it."
            )

        async def start() -> None:
            made = await self._successor(old)
            switched = self._switch(old, made)
            plan = KeyRotationPlan(
                profile.id, _project(old), old.id, old.name, made.key.id, made.key.created_at or int(self.clock()),
                quiet_seconds, switched, old.last_used_at,
            )  # fmt: skip
            plan.old_key_read(old.last_used_at, self.clock())
            self.store.save(plan)
            self.keys.record(plan.project_id, f"rotation started: {old.name} ({old.id}) → {made.key.id}")
            self.successor_made.emit(made)
            self.changed.emit()
            await self.keys.read()

        self.keys.run("keys.rotate", start)

    def check(self) -> None:
        """Read the old key's `last_used_at` and move the plan (quiet or not)."""
        plan = self.plan
        if plan is None or plan.step == KeyStep.DONE:
            return

        async def check() -> None:
            old = await self.keys.client().keys.retrieve(plan.old_id, plan.project_id)
            plan.old_key_read(old.last_used_at, self.clock())
            self.store.save(plan)
            self.changed.emit()

        self.keys.run("keys.rotation_check", check)

    def revoke_old(self) -> None:
        plan = self.plan
        if plan is None:
            return
        plan.require_quiet()  # raises KeyRotationError when not quiet yet; nothing is sent then

        async def revoke() -> None:
            await self.keys.client().keys.revoke(plan.old_id, plan.project_id)
            plan.revoked()
            self.store.save(plan)
            self.keys.record(plan.project_id, f"rotation finished: revoked {plan.old_name} ({plan.old_id})")
            self.changed.emit()

        self.keys.run("keys.rotation_revoke", revoke)

    def cancel(self) -> None:
        """Forget the plan; both keys stay as they are."""
        plan = self.plan
        if plan is not None:
            self.store.discard(plan.profile_id)
            if plan.step != KeyStep.DONE:
                self.keys.record(
                    plan.project_id, f"rotation cancelled: {plan.old_name} ({plan.old_id}) stays"
                )
            self.changed.emit()

    def leaked(self, old: ApiKey) -> None:
        """Successor made, this console switched, old key revoked, in that order; then what it did."""

        async def leaked() -> None:
            client = self.keys.client()
            project_id = _project(old)
            before = await client.keys.retrieve(old.id, project_id)  # its count as of now
            made = await self._successor(old)
            switched = self._switch(old, made)
            await client.keys.revoke(old.id, project_id)
            changes: list[str] = []
            if old.kind == "admin":
                async for event in client.audit_log.events(limit=500):
                    if event.actor.id == old.id:
                        changes.append(f"{date_text(event.created_at)}  {event.type}  from {event.source_ip}")
            self.keys.record(project_id, f"leaked: {old.name} ({old.id}) revoked, replaced by {made.key.id}")
            self.leak_handled.emit(LeakReport(before, made, switched, tuple(changes)))
            await self.keys.read()

        self.keys.run("keys.leaked", leaked)

    async def _successor(self, old: ApiKey) -> CreatedKey:
        permissions = old.permissions if isinstance(old.permissions, str) else list(old.permissions)
        return await self.keys.client().keys.create(successor_name(old), _project(old), permissions)

    def _switch(self, old: ApiKey, made: CreatedKey) -> bool:
        """This console's profile takes the successor when it used the old key: keychain and connection.
        Without a keychain (and no consent to keep it for the session) it stays on the old key; the value is
        shown all the same."""
        profile = self.session.profile
        if profile is None or self.keys.in_use(old) is None:
            return False
        try:
            self.keys.use_in_profile(profile.id, made)
        except KeychainUnavailable as error:
            self.failed.emit(f"{error} This console still uses the old key: put the new one in its profile.")
            return False
        return True

    def _poll_while_waiting(self) -> None:
        plan = self.plan
        if plan is not None and plan.step == KeyStep.CREATED:
            self.poll.start()
        else:
            self.poll.stop()


def _project(key: ApiKey) -> str | None:
    return key.project_id if key.kind == "project" else None
