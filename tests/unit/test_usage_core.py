"""The Usage tab's Qt-free logic: ranges and their previous periods, rows grouped into series and table rows
at the price table, the CSV, and the limits form's checks."""

from __future__ import annotations

import calendar
from datetime import date

import pytest

from app.api.usage import ModelPrice, UsageRow
from app.core.usage.limits_form import FormProblem, limits_change
from app.core.usage.ranges import DAY, HOUR, RangeKind, TimeRange, time_range
from app.core.usage.series import Grouping, Metric, chart_series, cost_of, table_rows
from app.core.usage.table_csv import table_csv

NOW = calendar.timegm((2026, 11, 28, 15, 30, 0))
MIDNIGHT = calendar.timegm((2026, 11, 28, 0, 0, 0))
PRICES = {"m-pro": ModelPrice(1.25, 0.125, 10.0)}


def row(start: int, project: str, key: str, model: str, inp: int, cached: int, out: int) -> UsageRow:
    return UsageRow(start, project, key, model, 1, inp, cached, out, 0)


def test_ranges_their_widths_and_previous_periods() -> None:
    today = time_range(RangeKind.TODAY, NOW)
    assert (today.start, today.end, today.width) == (MIDNIGHT, MIDNIGHT + DAY, HOUR)
    assert today.previous() == TimeRange(MIDNIGHT - DAY, MIDNIGHT, HOUR)
    week = time_range(RangeKind.WEEK, NOW)
    assert (week.width, len(week.buckets), week.end) == (DAY, 7, MIDNIGHT + DAY)
    assert len(time_range(RangeKind.MONTH_30, NOW).buckets) == 30
    month = time_range(RangeKind.THIS_MONTH, NOW)
    assert month.start == calendar.timegm((2026, 11, 1, 0, 0, 0)) and len(month.buckets) == 28
    custom = time_range(RangeKind.CUSTOM, NOW, date(2026, 11, 1), date(2026, 11, 2))
    assert (custom.width, len(custom.buckets)) == (HOUR, 48)  # two days still read in hours
    with pytest.raises(ValueError, match="before"):
        time_range(RangeKind.CUSTOM, NOW, date(2026, 11, 2), date(2026, 11, 1))


def test_series_and_table_by_grouping_and_metric() -> None:
    span = TimeRange(MIDNIGHT - DAY, MIDNIGHT + DAY, DAY)
    rows = [
        row(MIDNIGHT - DAY, "p1", "k1", "m-pro", 1_000_000, 0, 0),
        row(MIDNIGHT, "p1", "k2", "m-pro", 0, 0, 100_000),
        row(MIDNIGHT, "p2", "k2", "m-free", 500, 0, 500),
        row(MIDNIGHT + 5 * DAY, "p2", "k2", "m-pro", 9, 0, 9),  # outside the range: not drawn
    ]
    by_project = chart_series(rows, span, Grouping.PROJECT, Metric.TOKENS, PRICES, {"p1": "Alpha"})
    assert [(one.name, one.values) for one in by_project] == [
        ("Alpha", (1_000_000.0, 100_000.0)),
        ("p2", (0.0, 1000.0)),
    ]
    by_key = chart_series(rows, span, Grouping.KEY, Metric.COST, PRICES)
    assert [(one.name, one.values) for one in by_key] == [("k1", (1.25, 0.0)), ("k2", (0.0, 1.0))]
    assert cost_of(row(0, "p", "k", "m-pro", 1_000_000, 1_000_000, 0), PRICES) == 0.125  # all cached
    table = table_rows(rows[:3], rows[3:], Grouping.MODEL, PRICES)
    assert [(r.group, r.tokens, r.cost, r.previous_tokens) for r in table] == [
        ("m-pro", 1_100_000, 2.25, 18),  # the previous period holds 18
        ("m-free", 1000, 0.0, 0),
    ]


def test_the_csv_has_a_header_and_never_a_formula() -> None:
    rows = table_rows([row(MIDNIGHT, "=cmd|calc", "k", "m-pro", 10, 0, 5)], [], Grouping.PROJECT, PRICES)
    lines = table_csv(rows).split("\r\n")
    assert lines[0].split(",")[:3] == ["group", "requests", "input_tokens"]
    assert lines[1] == "'=cmd|calc,1,10,0,5,0,15,0.000063,0,0.000000"


@pytest.mark.parametrize(
    ("rpm", "tpm", "budget", "alerts", "problem"),
    [
        ("abc", "", "", "", "Requests per minute"),
        ("0", "", "", "", "Requests per minute"),
        ("", "1.5", "", "", "Tokens per minute"),
        ("", "", "ten", "", "US dollars"),
        ("", "", "0.001", "", "at least .0.01"),
        ("", "", "10", "fifty", "whole percents"),
        ("", "", "10", "", "whole percents"),
    ],
)
def test_the_form_names_the_field_that_is_wrong(
    rpm: str, tpm: str, budget: str, alerts: str, problem: str
) -> None:
    with pytest.raises(FormProblem, match=problem):
        limits_change(rpm, tpm, budget, alerts, False)


def test_the_form_reads_what_it_sends() -> None:
    change = limits_change("1,000", "", "$19.99", "50%, 80, 100", True)
    assert change.rate_limit == {"max_requests_per_1_minute": 1000, "max_tokens_per_1_minute": None}
    assert change.budget == {"monthly_usd": 19.99, "thresholds": [50, 80, 100], "hard_limit": True}
    assert limits_change("", "", "", "", False).budget == {"monthly_usd": None}  # removes the budget
