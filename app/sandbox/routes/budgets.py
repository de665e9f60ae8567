"""Monthly budgets in the Admin API (admin key; the sandbox's own, docs/contract.md "Usage and costs"):
`GET .../budgets` lists the organization's and its projects' with this month's spend and alerts;
`POST .../budget` and `POST .../projects/{id}/budget` set one (`monthly_usd: null` removes it), audited."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.admin import AuditType
from app.sandbox.contract.budgets import BudgetUpdate
from app.sandbox.contract.validate import parse_json_body, validate
from app.sandbox.routes.admin import _origin, _target
from app.sandbox.store.aggregates import Store
from app.sandbox.store.audit import AuditRecord
from app.sandbox.store.budgets import ORGANIZATION, Budget, month_of


class BudgetRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store

    def _json(self, budget: Budget) -> dict[str, Any]:
        budgets = self.store.budgets
        spend = budgets.spend.get((budget.org_id, budget.project_id))
        spent = spend.spent_usd if spend is not None else 0.0
        stopped = (
            budget.org_id in budgets.stopped_orgs
            if budget.project_id == ORGANIZATION
            else budget.project_id in budgets.stopped_projects
        )
        return {
            "object": "budget",
            "project_id": budget.project_id or None,
            "monthly_usd": budget.monthly_usd,
            "thresholds": list(budget.thresholds),
            "hard_limit": budget.hard_limit,
            "month": month_of(self.store.database.now())[0],
            "spent_usd": round(spent, 6),
            "percent": round(100 * spent / budget.monthly_usd, 2),
            "alerts": [
                {
                    "threshold": alert["threshold"],
                    "at": alert["at"],
                    "spent_usd": round(alert["spent_usd"], 6),
                }
                for alert in (spend.alerts if spend is not None else ())
            ],
            "stopped": stopped,
        }

    async def list_budgets(self, request: Request) -> Response:
        _, org_id, _ = _target(request, self.store)
        await self.store.usage.flush()
        await self.store.budgets.check()
        data = [self._json(budget) for budget in self.store.budgets.all(org_id)]
        return JSONResponse({"object": "list", "data": data, "has_more": False})

    async def update(self, request: Request) -> Response:
        scope, owner, context = _target(request, self.store)
        org_id = request.path_params["org_id"]
        project_id = owner if scope == "project" else ORGANIZATION
        given = validate(BudgetUpdate, parse_json_body(await request.body()))
        thresholds = given.checked_thresholds()
        before = next((b for b in self.store.budgets.all(org_id) if b.project_id == project_id), None)
        budget = (
            None
            if given.monthly_usd is None
            else Budget(org_id, project_id, given.monthly_usd, thresholds, given.hard_limit)
        )
        after = self._json(budget) if budget is not None else None
        audit = AuditRecord(
            AuditType.BUDGET_UPDATED,
            scope,
            owner,
            _origin(context, False),
            None,
            self._json(before) if before is not None else None,
            after,
        )
        await self.store.budgets.change(budget, org_id, project_id, audit)
        if budget is None:
            return JSONResponse(
                {"object": "budget.deleted", "project_id": project_id or None, "deleted": True}
            )
        return JSONResponse(self._json(budget))
