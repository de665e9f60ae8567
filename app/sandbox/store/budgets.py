"""Monthly budgets in US dollars, for an organization (project "") and for each project: alert thresholds (a
percentage of the budget) and whether reaching 100 % stops the project (a hard limit).

This month's spend is the usage's cost at the price table's prices (usage.py, prices.py), read from the day
buckets after each flush (`check`, every flush interval): a threshold reached is recorded once a month, in
`budget_alerts` and in the audit log; a hard budget reached puts its project (or every project of its
organization) in `stopped`, which the gateway reads on every request (one set lookup).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.sandbox.contract.admin import AuditType
from app.sandbox.store.audit import SERVICE_ORIGIN, AuditRecord, insert
from app.sandbox.store.database import Database
from app.sandbox.store.prices import PriceTable

ORGANIZATION = ""  # the project id of an organization's own budget


@dataclass(frozen=True)
class Budget:
    org_id: str
    project_id: str  # "" for the organization's
    monthly_usd: float
    thresholds: tuple[int, ...] = (50, 80, 100)
    hard_limit: bool = False


@dataclass
class Spend:
    """This month's state of one budget, as the last check found it."""

    month: str
    spent_usd: float = 0.0
    alerts: list[dict[str, Any]] = field(default_factory=list)


def month_of(now: float) -> tuple[str, int]:
    """("YYYY-MM", the month's first second), UTC."""
    moment = datetime.fromtimestamp(now, UTC)
    first = moment.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return first.strftime("%Y-%m"), int(first.timestamp())


class Budgets:
    """The budgets of one store, their spend, and the projects and organizations a hard budget stopped."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self.prices: PriceTable | None = None  # set by create_app: no prices, no spend
        self.stopped_projects: frozenset[str] = frozenset()
        self.stopped_orgs: frozenset[str] = frozenset()
        self.spend: dict[tuple[str, str], Spend] = {}

    def all(self, org_id: str) -> list[Budget]:
        rows = self._database.read(
            lambda db: db.execute(
                "SELECT * FROM budgets WHERE org_id = ? ORDER BY project_id", (org_id,)
            ).fetchall()
        )
        return [
            Budget(
                row["org_id"],
                row["project_id"],
                row["monthly_usd"],
                tuple(json.loads(row["thresholds"])),
                bool(row["hard_limit"]),
            )
            for row in rows
        ]

    async def change(self, budget: Budget | None, org_id: str, project_id: str, audit: AuditRecord) -> None:
        """Store `budget` (None removes the budget of `project_id`) with its audit event, then check."""
        now = self._database.now()

        def work(db: sqlite3.Connection) -> None:
            db.execute("DELETE FROM budgets WHERE org_id = ? AND project_id = ?", (org_id, project_id))
            if budget is not None:
                db.execute(
                    "INSERT INTO budgets VALUES (?, ?, ?, ?, ?)",
                    (
                        org_id,
                        project_id,
                        budget.monthly_usd,
                        json.dumps(list(budget.thresholds)),
                        int(budget.hard_limit),
                    ),
                )
            insert(db, audit, now)

        await self._database.write(work)
        await self.check()

    def _costs(self, org_ids: set[str], since: int) -> dict[tuple[str, str], float]:
        """This month's cost by (organization, project)."""
        prices = self.prices.prices() if self.prices is not None else {}
        query = (
            "SELECT org_id, project_id, model, SUM(input_tokens) AS input, SUM(input_cached_tokens) AS cached, "
            "SUM(output_tokens) AS output FROM usage_buckets WHERE width = 86400 AND start >= ? "
            f"AND org_id IN ({', '.join('?' for _ in org_ids)}) GROUP BY org_id, project_id, model"
        )
        rows = self._database.read(lambda db: db.execute(query, (since, *org_ids)).fetchall())
        costs: dict[tuple[str, str], float] = {}
        for row in rows:
            price = prices.get(row["model"])
            if price is None:
                continue
            cost = price.cost(row["input"] - row["cached"], row["cached"], row["output"])
            for owner in ((row["org_id"], row["project_id"]), (row["org_id"], ORGANIZATION)):
                costs[owner] = costs.get(owner, 0.0) + cost
        return costs

    async def check(self) -> None:
        """Read this month's spend of every budget, record the thresholds newly reached, stop what a hard
        budget holds (after the usage was flushed: the keeper's round, a budget changed)."""
        now = self._database.now()
        month, since = month_of(now)
        budgets = self._database.read(lambda db: db.execute("SELECT * FROM budgets").fetchall())
        raised = self._database.read(
            lambda db: db.execute("SELECT * FROM budget_alerts WHERE month = ?", (month,)).fetchall()
        )
        alerted = {(row["org_id"], row["project_id"], row["threshold"]) for row in raised}
        costs = self._costs({row["org_id"] for row in budgets}, since) if budgets else {}
        spend: dict[tuple[str, str], Spend] = {}
        new_alerts: list[tuple[str, str, int, float, float]] = []
        projects: set[str] = set()
        orgs: set[str] = set()
        for row in budgets:
            owner = (row["org_id"], row["project_id"])
            spent = costs.get(owner, 0.0)
            spend[owner] = Spend(
                month,
                spent,
                [dict(alert) for alert in raised if (alert["org_id"], alert["project_id"]) == owner],
            )
            share = 100 * spent / row["monthly_usd"]
            for threshold in json.loads(row["thresholds"]):
                if share >= threshold and (*owner, threshold) not in alerted:
                    new_alerts.append((*owner, threshold, spent, row["monthly_usd"]))
            if row["hard_limit"] and share >= 100:
                (orgs if row["project_id"] == ORGANIZATION else projects).add(
                    row["project_id"] or row["org_id"]
                )
        if new_alerts:
            await self._database.write(lambda db: _record_alerts(db, new_alerts, month, now))
            for org_id, project_id, threshold, spent, _ in new_alerts:
                alert = {
                    "org_id": org_id,
                    "project_id": project_id,
                    "month": month,
                    "threshold": threshold,
                    "at": now,
                    "spent_usd": spent,
                }
                spend[org_id, project_id].alerts.append(alert)
        self.spend = spend
        self.stopped_projects, self.stopped_orgs = frozenset(projects), frozenset(orgs)


def _record_alerts(
    db: sqlite3.Connection, alerts: list[tuple[str, str, int, float, float]], month: str, now: int
) -> None:
    for org_id, project_id, threshold, spent, budget in alerts:
        db.execute(
            "INSERT OR IGNORE INTO budget_alerts VALUES (?, ?, ?, ?, ?, ?)",
            (org_id, project_id, month, threshold, now, spent),
        )
        scope, owner = ("project", project_id) if project_id else ("organization", org_id)
        after = {"month": month, "threshold": threshold, "spent_usd": round(spent, 6), "monthly_usd": budget}
        insert(db, AuditRecord(AuditType.BUDGET_ALERT, scope, owner, SERVICE_ORIGIN, after=after), now)
