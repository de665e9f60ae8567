"""The usage a Usage tab shows: one read of a range (grouped by project, key and model at once, so a change
of grouping or metric is drawn again without a request), the period before it, the price table, the
projects' names and the budgets with their alerts; and a project's rate limit and budget, read and changed."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal

from app.api.budgets import Budget as Budget  # the tab reads it from here (ui never imports app.api)
from app.api.errors import ApiError
from app.api.usage import ModelPrice, UsageRow
from app.core.usage.limits_form import LimitsChange
from app.core.usage.ranges import TimeRange
from app.services.prices import price_source
from app.services.session.session import ConsoleSession

ALL_GROUPS = ("project_id", "api_key_id", "model")
PROJECT_WIDE = "rl-project"  # the sandbox's and hosted service's limit on all of a project's requests


@dataclass
class UsageReport:
    """What one read brought: the range's rows and the previous period's, at these prices."""

    span: TimeRange
    rows: list[UsageRow] = field(default_factory=list)
    previous: list[UsageRow] = field(default_factory=list)
    prices: dict[str, ModelPrice] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)  # project id -> its name
    budgets: list[Budget] = field(default_factory=list)


@dataclass(frozen=True)
class ProjectLimits:
    """A project's project-wide rate limit counts and its budget (None: no budget)."""

    project_id: str
    requests_per_minute: int | None
    tokens_per_minute: int | None
    budget: Budget | None


class UsageService(QObject):
    loaded = Signal()  # `report` holds the range asked for
    failed = Signal(str)  # a sentence for the person
    limits_read = Signal(ProjectLimits)  # of the project asked for
    saved = Signal(str)  # what was changed, as a sentence

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.report: UsageReport | None = None

    def _client_or_fail(self) -> bool:
        client = self.session.client
        if client is None or not client.has_key("admin"):
            self.failed.emit(
                "Usage, costs and limits need the profile's admin key (they are the organization's)."
            )
            return False
        return True

    def refresh(self, span: TimeRange) -> None:
        if self._client_or_fail():
            self.session.tasks.start("usage.read", self._read(span))

    def read_limits(self, project_id: str) -> None:
        if self._client_or_fail():
            self.session.tasks.start("usage.limits", self._limits(project_id))

    def save_limits(self, project_id: str, change: LimitsChange) -> None:
        if self._client_or_fail():
            self.session.tasks.start("usage.save", self._save(project_id, change))

    async def _read(self, span: TimeRange) -> None:
        client = self.session.client
        assert client is not None
        before = span.previous()
        end = min(span.end, int(time.time()) // span.width * span.width + span.width)
        try:
            projects, prices, rows, previous, budgets = await asyncio.gather(
                client.allowlists.projects(),
                client.usage.prices(),
                client.usage.completions(span.start, end, span.width_name, ALL_GROUPS),
                client.usage.completions(before.start, before.end, before.width_name, ALL_GROUPS),
                client.budgets.list(),
            )
        except ApiError as error:
            self.failed.emit(f"The usage could not be read: {error}")
            return
        names = {project.id: project.label for project in projects}
        self.report = UsageReport(span, rows, previous, prices, names, budgets)
        price_source(self.session).take(prices)  # the Playground's costs follow the table read here
        self.loaded.emit()

    async def _limits(self, project_id: str) -> None:
        client = self.session.client
        assert client is not None
        try:
            limits, budgets = await asyncio.gather(client.rate_limits.list(project_id), client.budgets.list())
        except ApiError as error:
            self.failed.emit(f"The project's limits could not be read: {error}")
            return
        wide = next((limit for limit in limits if limit.id == PROJECT_WIDE), None)
        budget = next((b for b in budgets if b.project_id == project_id), None)
        self.limits_read.emit(
            ProjectLimits(
                project_id,
                wide.max_requests_per_1_minute if wide else None,
                wide.max_tokens_per_1_minute if wide else None,
                budget,
            )
        )

    async def _save(self, project_id: str, change: LimitsChange) -> None:
        client = self.session.client
        assert client is not None
        try:  # the budget first: its bounds are the service's to check, so a refusal leaves both as they were
            await client.budgets.set(project_id, change.budget)
            await client.rate_limits.set(project_id, PROJECT_WIDE, change.rate_limit)
        except ApiError as error:
            self.failed.emit(f"The limits were not saved: {error}")
            await self._limits(project_id)  # what the service holds, not what was typed
            return
        self.saved.emit("The project's rate limit and budget are saved.")
        await self._limits(project_id)
