"""`service-console allowlist plan|apply|export FILE`: the allowlists as a policy file (app.core.security.
policy_file), for review and CI.

`plan` reads every list the file names and prints what would change (exit 0: nothing, 5: something).
`apply` makes exactly what it planned: each list's changes go in one batch that the service makes whole or
not at all, on the version the plan read (If-Match); a list changed since stops the run with "plan again"
(exit 5) and nothing more is changed. Every list's version is read again before the first batch is sent,
so a change made by hand between plan and apply changes nothing at all. The lockout guard is the window's:
a plan that would lock this machine out is refused (exit 1) unless --force.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.common.fileio import write_atomically
from app.core.security.policy_file import (
    ListPolicy,
    Policy,
    PolicyEntry,
    PolicyError,
    export_policy,
    load_policy,
)
from app.core.security.policy_plan import ListPlan, plan_json, plan_lines, plan_list

from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.admin import Allowlist, Project
    from app.api.client import ServiceClient


def read_policy(path: Path) -> Policy:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CommandFailed(Exit.USAGE, f"{path}: {error.strerror or error}.") from None
    try:
        return load_policy(text)
    except PolicyError as error:
        raise CommandFailed(Exit.USAGE, f"{path}: {error}") from None


class PolicyCommands:
    def __init__(self, client: ServiceClient, days: int = 30, force: bool = False) -> None:
        self.client = client
        self.lists = client.allowlists
        self.days = days
        self.force = force
        self._projects: tuple[Project, ...] | None = None

    async def projects(self) -> tuple[Project, ...]:
        if self._projects is None:
            self._projects = await self.lists.projects()
        return self._projects

    async def _project_id(self, wanted: str) -> str:
        projects = await self.projects()
        found = next((p for p in projects if wanted in (p.id, p.name)), None)
        if found is None:
            names = ", ".join(p.label for p in projects) or "none"
            raise CommandFailed(Exit.USAGE, f"No project “{wanted}” in the organization (projects: {names}).")
        return found.id

    async def plans(self, policy: Policy) -> list[ListPlan]:
        from .policy_evidence import add_evidence

        plans = []
        now = time.time()
        for listed in policy.lists:
            project_id = await self._project_id(listed.project) if listed.project is not None else None
            current = await self.lists.get(project_id)
            plans.append(plan_list(listed, current, project_id, now))
        return [await add_evidence(self.client, plan, self.days) for plan in plans]

    async def plan(self, path: Path) -> Outcome:
        plans = await self.plans(read_policy(path))
        lines = [line for plan in plans for line in plan_lines(plan)]
        changes = any(plan.changes for plan in plans)
        lines.append("Something would change: `apply` makes it." if changes else "Nothing would change.")
        data = {"changes": changes, "lists": [plan_json(plan) for plan in plans]}
        return Outcome(lines, data, Exit.CHANGES if changes else Exit.DONE)

    async def apply(self, path: Path, reviewed: Path | None = None) -> Outcome:
        """Apply FILE; with `reviewed` (what `plan --json` printed), only if the plan made now is that one."""
        from app.api.admin import AllowlistChanged
        from app.api.allowlist_changes import BatchUnsupported, apply_batch

        plans = await self.plans(read_policy(path))
        if reviewed is not None:
            _check_reviewed(plans, reviewed)
        plans = [plan for plan in plans if plan.changes]
        blocking = [plan for plan in plans if plan.locks_out]
        if blocking and not self.force:
            names = ", ".join(plan.label for plan in blocking)
            raise CommandFailed(
                Exit.REFUSED_BY_GUARD,
                f"Applying this file would lock this machine ({blocking[0].source_ip or 'an unknown address'}) "
                f"out of the API ({names}). Nothing was changed (--force overrides).",
            )
        for plan in plans:  # nothing is sent while any list differs from what the plan read
            if (await self.lists.get(plan.project_id)).version != plan.version:
                raise _plan_again(plan, [])
        applied: list[ListPlan] = []
        results: list[Allowlist] = []
        for plan in plans:
            try:
                results.append(
                    await apply_batch(
                        self.lists, plan.batch(), plan.project_id, plan.version or "", self.force
                    )
                )
            except AllowlistChanged:
                raise _plan_again(plan, applied) from None
            except BatchUnsupported:
                raise CommandFailed(
                    Exit.USAGE,
                    "This service takes no batch of allowlist changes, so a list could be left half changed: "
                    f"nothing was changed{_after(applied)}.",
                ) from None
            applied.append(plan)
        lines = [line for plan in plans for line in plan_lines(plan)]
        lines.append(f"Applied: {len(plans)} list(s) changed." if plans else "Nothing to change.")
        data = {
            "applied": [plan_json(plan) for plan in plans],
            "versions": {plan.label: result.version for plan, result in zip(plans, results, strict=True)},
        }
        return Outcome(lines, data)

    async def export(self, path: Path) -> Outcome:
        """The organization's list and every project's, written into FILE (its comments kept)."""
        lists = [_as_policy(None, await self.lists.get())]
        projects = await self.projects()
        names = [p.name for p in projects]
        for project in projects:
            label = project.name if project.name and names.count(project.name) == 1 else project.id
            lists.append(_as_policy(label, await self.lists.get(project.id)))
        existing = path.read_text(encoding="utf-8") if path.exists() else None
        text = export_policy(lists, existing)
        try:
            write_atomically(path, text, make_folder=False)  # a failed export leaves an earlier file whole
        except OSError as error:
            raise CommandFailed(Exit.USAGE, f"{path}: {error.strerror or error}.") from None
        count = sum(len(listed.entries) for listed in lists)
        return Outcome(
            [f"Wrote {len(lists)} list(s), {count:,} entries, to {path}."],
            {"path": str(path), "lists": len(lists), "entries": count},
        )


_COMPARED = ("list", "project", "version", "enabled", "add", "change")


def _check_reviewed(plans: list[ListPlan], reviewed: Path) -> None:
    """Stop ("plan again") unless every list is at the version the reviewed plan read, with its changes."""
    try:
        saved = json.loads(reviewed.read_text(encoding="utf-8"))["lists"]
        by_list = {(item["list"], item["project"]): item for item in saved}
    except (OSError, ValueError, KeyError, TypeError):
        raise CommandFailed(Exit.USAGE, f"{reviewed}: not a plan printed by `plan --json`.") from None
    for plan in plans:
        now = plan_json(plan)
        then = by_list.get((now["list"], now["project"]))
        if then is None or any(then.get(key) != now[key] for key in _COMPARED):
            raise _plan_again(plan, [])
        if [e["id"] for e in then["remove"]] != [e["id"] for e in now["remove"]]:
            raise _plan_again(plan, [])


def _as_policy(project: str | None, data: Allowlist) -> ListPolicy:
    entries = tuple(PolicyEntry(e.cidr, e.description, e.expires_at) for e in data.entries)
    return ListPolicy(project, data.enabled, entries)


def _after(applied: list[ListPlan]) -> str:
    if not applied:
        return ""
    return " after " + ", ".join(plan.label for plan in applied) + " (each whole)"


def _plan_again(plan: ListPlan, applied: list[ListPlan]) -> CommandFailed:
    done = f"; already applied, each whole: {', '.join(p.label for p in applied)}" if applied else ""
    details: dict[str, Any] = {"list": plan.label}
    return CommandFailed(
        Exit.CHANGES,
        f"The {plan.label} list changed since the plan read it: nothing was changed on it{done}. Plan again.",
        details,
    )
