"""Usage rows grouped for the Usage tab: one series per project, model or key over the range's buckets
(tokens or US dollars, stacked on the chart), and one table row per group with the period before beside it.

A cost is the rows' tokens at the service's price table (`GET .../prices`), as its costs endpoint prices
them: uncached input, cached input and output at their own prices per million tokens; a model the table
does not name costs nothing."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from app.api.usage import ModelPrice, UsageRow

from .ranges import TimeRange


class Grouping(Enum):
    PROJECT = ("Project", "project_id")
    MODEL = ("Model", "model")
    KEY = ("API key", "api_key_id")

    @property
    def label(self) -> str:
        return self.value[0]

    @property
    def field(self) -> str:
        """The usage endpoint's `group_by` value, and the UsageRow attribute."""
        return self.value[1]


class Metric(Enum):
    TOKENS = "Tokens"
    COST = "Cost (USD)"


def query_groups(grouping: Grouping) -> tuple[str, ...]:
    """What to group the query by: the model always, since a cost needs the model's price."""
    return (grouping.field,) if grouping is Grouping.MODEL else (grouping.field, "model")


def cost_of(row: UsageRow, prices: Mapping[str, ModelPrice]) -> float:
    price = prices.get(row.model or "")
    if price is None:
        return 0.0
    uncached = max(row.input_tokens - row.input_cached_tokens, 0)
    return price.cost(uncached, row.input_cached_tokens, row.output_tokens)


def tokens_of(row: UsageRow) -> int:
    return row.input_tokens + row.output_tokens


@dataclass(frozen=True)
class Series:
    """One stacked series: a group's name and its value in each of the range's buckets."""

    name: str
    values: tuple[float, ...]


def _name(row: UsageRow, grouping: Grouping, names: Mapping[str, str]) -> str:
    value = getattr(row, grouping.field) or ""
    if grouping is Grouping.KEY and value == "":
        return "(no key)"
    return names.get(value, value) or "(none)"


def chart_series(
    rows: Iterable[UsageRow],
    span: TimeRange,
    grouping: Grouping,
    metric: Metric,
    prices: Mapping[str, ModelPrice],
    names: Mapping[str, str] | None = None,
) -> list[Series]:
    """A series per group, largest total first, over every bucket of `span` (empty buckets are 0)."""
    index = {start: position for position, start in enumerate(span.buckets)}
    values: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(index))
    for row in rows:
        position = index.get(row.start_time)
        if position is None:
            continue
        amount = cost_of(row, prices) if metric is Metric.COST else float(tokens_of(row))
        values[_name(row, grouping, names or {})][position] += amount
    ordered = sorted(values.items(), key=lambda pair: (-sum(pair[1]), pair[0]))
    return [Series(name, tuple(numbers)) for name, numbers in ordered]


@dataclass(frozen=True)
class TableRow:
    """A group's totals over the range, and the previous period's tokens and cost."""

    group: str
    requests: int
    input_tokens: int
    cached_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cost: float
    previous_tokens: int
    previous_cost: float

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


def table_rows(
    rows: Iterable[UsageRow],
    previous: Iterable[UsageRow],
    grouping: Grouping,
    prices: Mapping[str, ModelPrice],
    names: Mapping[str, str] | None = None,
) -> list[TableRow]:
    """A row per group seen in either period, by tokens in the range, largest first."""
    names = names or {}
    now: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0.0])
    before: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    for row in rows:
        sums = now[_name(row, grouping, names)]
        sums[0] += row.requests
        sums[1] += row.input_tokens
        sums[2] += row.input_cached_tokens
        sums[3] += row.output_tokens
        sums[4] += row.output_reasoning_tokens
        sums[5] += cost_of(row, prices)
    for row in previous:
        sums = before[_name(row, grouping, names)]
        sums[0] += tokens_of(row)
        sums[1] += cost_of(row, prices)
    made = []
    for group in set(now) | set(before):
        current = now.get(group, [0, 0, 0, 0, 0, 0.0])
        earlier = before.get(group, [0, 0.0])
        made.append(
            TableRow(
                group,
                requests=int(current[0]),
                input_tokens=int(current[1]),
                cached_tokens=int(current[2]),
                output_tokens=int(current[3]),
                reasoning_tokens=int(current[4]),
                cost=current[5],
                previous_tokens=int(earlier[0]),
                previous_cost=earlier[1],
            )
        )
    return sorted(made, key=lambda row: (-row.tokens, row.group))
