"""Monthly budgets (Admin API, admin key; the sandbox's own, docs/contract.md "Usage and costs"): the
organization's and each project's, with this month's spend and the alerts its thresholds raised."""

from __future__ import annotations

from typing import Any

from .admin import parse
from .transport import Transport
from .wire import WireModel


class BudgetAlert(WireModel):
    threshold: int
    at: int
    spent_usd: float


class Budget(WireModel):
    """A budget; `project_id` None is the organization's."""

    project_id: str | None = None
    monthly_usd: float
    thresholds: tuple[int, ...] = ()
    hard_limit: bool = False
    spent_usd: float = 0.0
    percent: float = 0.0
    alerts: tuple[BudgetAlert, ...] = ()
    stopped: bool = False


class Budgets:
    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    async def list(self) -> list[Budget]:
        path = f"/organizations/{self.org_id}/budgets"
        result, _ = await self._transport.request("GET", path, key="admin")
        data = result.get("data") if isinstance(result, dict) else None
        return [parse(Budget, item, "a budget") for item in data or ()]

    async def set(self, project_id: str | None, body: dict[str, Any]) -> None:
        """`{monthly_usd, thresholds?, hard_limit?}` for a project (None: the organization); null removes it."""
        owner = f"/projects/{project_id}" if project_id else ""
        path = f"/organizations/{self.org_id}{owner}/budget"
        await self._transport.request("POST", path, key="admin", json_body=body)
