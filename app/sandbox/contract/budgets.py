"""The contract of the monthly budgets (the sandbox's own Admin API: the hosted service publishes none):
`GET .../budgets`, `POST .../budget` (the organization's) and `POST .../projects/{id}/budget`."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

MOST_USD = 1e9


class BudgetUpdate(BaseModel):
    """A budget in US dollars a month (null removes it), its alert thresholds in percent, and whether
    reaching 100 % stops the project (for an organization's: every project of it)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    monthly_usd: float | None = Field(ge=0.01, le=MOST_USD)  # a cent at least
    thresholds: list[Annotated[int, Field(ge=1, le=1000)]] = Field(
        default=[50, 80, 100], min_length=1, max_length=10
    )
    hard_limit: bool = False

    def checked_thresholds(self) -> tuple[int, ...]:
        return tuple(sorted(set(self.thresholds)))
