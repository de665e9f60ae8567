"""The checks of the Usage tab's limits and budget form, before anything is sent: counts are whole numbers
of at least 1 (empty is no limit), a budget is US dollars of at least a cent (empty removes it), thresholds
are whole percents. The upper bounds are the service's to set: what it refuses is shown in its words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class FormProblem(ValueError):
    """A sentence for the person, naming the field."""


def count(text: str, field: str) -> int | None:
    text = text.strip().replace(",", "").replace("_", "")
    if text == "":
        return None
    if not text.isdigit() or int(text) < 1:
        raise FormProblem(f"{field} takes a whole number of at least 1, or nothing for no limit.")
    return int(text)


def dollars(text: str) -> float | None:
    text = text.strip().lstrip("$").replace(",", "")
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise FormProblem("The monthly budget takes an amount in US dollars, like 250 or 19.99.") from None
    if not value >= 0.01 or value != value or value == float("inf"):
        raise FormProblem("The monthly budget is at least $0.01 (leave it empty for no budget).")
    return round(value, 2)


def thresholds(text: str) -> list[int]:
    parts = [part.strip().rstrip("%") for part in text.replace(";", ",").split(",") if part.strip()]
    if not parts or not all(part.isdigit() and int(part) >= 1 for part in parts):
        raise FormProblem("Alert thresholds are whole percents separated by commas, like 50, 80, 100.")
    return [int(part) for part in parts]


@dataclass(frozen=True)
class LimitsChange:
    """What the form sends: the project-wide rate limit's counts, and the budget (None removes it)."""

    rate_limit: dict[str, int | None]
    budget: dict[str, Any]


def limits_change(rpm: str, tpm: str, budget: str, alert_at: str, hard_limit: bool) -> LimitsChange:
    """The form's fields checked and read; raises FormProblem with the first field that is wrong."""
    counts = {
        "max_requests_per_1_minute": count(rpm, "Requests per minute"),
        "max_tokens_per_1_minute": count(tpm, "Tokens per minute"),
    }
    monthly = dollars(budget)
    body: dict[str, Any] = {"monthly_usd": monthly}
    if monthly is not None:
        body |= {"thresholds": thresholds(alert_at), "hard_limit": hard_limit}
    return LimitsChange(counts, body)
