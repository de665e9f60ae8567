"""A policy file (TOML) imported into the shown list from the window: its plan for that list (added,
removed, changed, the switch), with what each removed entry admitted lately (ListTools' evidence), then
applied as one batch on the version the plan read, whole or not at all."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError
from app.core.security.files import TransferError
from app.core.security.history_rows import Change
from app.core.security.policy_file import PolicyError, load_policy
from app.core.security.policy_plan import ListPlan, plan_list
from app.services.security.allowlist import AllowlistService
from app.services.session.session import ConsoleSession


class PolicyImport(QObject):
    applied = Signal(bool)  # the batch was made (False: refused, nothing changed)

    def __init__(
        self, session: ConsoleSession, allowlist: AllowlistService, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.allowlist = allowlist

    def plan(self, path: Path) -> ListPlan:
        """The plan of the file's section for the shown list; TransferError says plainly what failed."""
        service = self.allowlist
        data = service.data
        if data is None:
            raise TransferError("Import: the list is not loaded yet.")
        try:
            policy = load_policy(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as error:
            raise TransferError(f"Import: {path.name}: {error}") from None
        except PolicyError as error:
            raise TransferError(f"Import: {path.name}: {error}") from None
        project = next((p for p in service.projects if p.id == service.project_id), None)
        names = {None} if project is None else {project.id, project.name}
        listed = next((item for item in policy.lists if item.project in names), None)
        if listed is None:
            where = "[organization]" if project is None else f'[projects."{project.name or project.id}"]'
            raise TransferError(f"Import: {path.name} says nothing of this list (no {where}).")
        plan = plan_list(listed, data, service.project_id)
        # The version of the list as last read or changed here, which the shown entries stand for (an add
        # shows its answer without reading the list again, so the shown list's own field can be older).
        client = self.session.client
        seen = client.allowlists.version(service.project_id) if client is not None else None
        return replace(plan, version=seen or plan.version)

    def apply(self, plan: ListPlan) -> None:
        async def go() -> None:
            from app.api.admin import AllowlistChanged
            from app.api.allowlist_changes import BatchUnsupported, apply_batch

            client = self.session.client
            assert client is not None
            try:
                await apply_batch(client.allowlists, plan.batch(), plan.project_id, plan.version or "")
            except AllowlistChanged:
                self.session.bus.warning(
                    "Import: the list changed since the plan was made, so nothing was changed; plan again."
                )
                self.applied.emit(False)
            except BatchUnsupported:
                self.session.bus.error("Import: this service takes no batch of changes; nothing was changed.")
                self.applied.emit(False)
            except ApiError as error:
                self.session.bus.error(f"Import: nothing was changed: {error}")
                self.applied.emit(False)
            else:
                self.session.bus.info(f"Imported the policy file into {plan.label}: the list is as it says.")
                switched = " and switched it" if plan.enabled_before != plan.enabled_after else ""
                what = (
                    f"{len(plan.add)} added, {len(plan.remove)} removed, {len(plan.change)} changed{switched}"
                )
                self.allowlist.record(Change.POLICY, what)
                self.applied.emit(True)
            self.allowlist.refresh()

        self.session.tasks.start("allowlist.policy_import", go())
