"""The Usage tab showing 90 days of day buckets for 3 projects x 4 models x 5 keys (5,400 rows, as one read
grouped by project, key and model brings them), against the same 90 days for one project, model and key as
the baseline, in the same run. Timed: the rows grouped into the chart's series and the table's rows, the
chart and the table filled, and the tab painted once at 1400x900 (offscreen). The goal: at most 300 ms.
Each figure is the median of the rounds.

Run: python -m tests.perf.bench_usage_tab [rounds]; BENCH_SIZE=tiny: 3 days, 2 rounds.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import cast

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication

from app.api.usage import ModelPrice, UsageRow
from app.core.usage.ranges import RangeKind, TimeRange
from app.core.usage.series import Grouping
from app.services.session.session import ConsoleSession
from app.services.usage.report import UsageReport
from app.ui.usage.tab import UsageTab
from tests.perf.tiny import size

DAYS = size(90, 3)
ROUNDS = size(7, 2)
GOAL_MS = 300
PROJECTS = [f"proj_{number}" for number in range(3)]
MODELS = [f"service-{name}" for name in ("pro", "ultra", "think", "think-mini")]
KEYS = [f"key_{number:016x}" for number in range(5)]
PRICES = {model: ModelPrice(1.25, 0.125, 10.0) for model in MODELS}


class NoSession(QObject):
    """What the tab reads of a session: no client (the bench hands the tab its report itself)."""

    client_changed = Signal()
    client = None


def report(span: TimeRange, projects: list[str], models: list[str], keys: list[str]) -> UsageReport:
    rows = [
        UsageRow(start, project, key, model, 3, 1200 + day, 200, 400 + day, 50)
        for day, start in enumerate(span.buckets)
        for project in projects
        for model in models
        for key in keys
    ]
    names = {project: f"Project {project[-1]}" for project in projects}
    return UsageReport(span, rows, rows[: len(rows) // 2], PRICES, names, [])


def shown_ms(tab: UsageTab, given: UsageReport) -> float:
    tab.service.report = given
    started = time.perf_counter()
    tab.redraw()
    tab.repaint()
    QApplication.processEvents()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    application = QApplication.instance() or QApplication([])
    tab = UsageTab(cast(ConsoleSession, NoSession()))
    tab.range_box.setCurrentIndex(tab.range_box.findData(RangeKind.CUSTOM))
    tab.group_box.setCurrentIndex(tab.group_box.findData(Grouping.KEY))  # 5 stacked sets, the most
    tab.resize(1400, 900)
    tab.show()
    QApplication.processEvents()
    last = datetime.now(UTC).date()
    first = last - timedelta(days=DAYS - 1)
    start = int(datetime(first.year, first.month, first.day, tzinfo=UTC).timestamp())
    span = TimeRange(start, start + DAYS * 86_400, 86_400)
    full = report(span, PROJECTS, MODELS, KEYS)
    baseline = report(span, PROJECTS[:1], MODELS[:1], KEYS[:1])
    shown_ms(tab, full)  # the first paint builds fonts and caches: not a figure
    small, large = [], []
    for _ in range(rounds):  # in turns, so the machine's load falls on both alike
        small.append(shown_ms(tab, baseline))
        large.append(shown_ms(tab, full))
    assert tab.table.rowCount() == len(KEYS) and len(tab.chart.set_names()) == len(KEYS)
    median_large, median_small = statistics.median(large), statistics.median(small)
    print(
        f"Usage tab, {DAYS} days x {len(full.rows) // DAYS} groups ({len(full.rows):,} rows): {median_large:,.0f} ms"
    )
    print(f"baseline, {DAYS} days x 1 group ({len(baseline.rows):,} rows): {median_small:,.0f} ms")
    print(f"goal: at most {GOAL_MS} ms -> {'met' if median_large <= GOAL_MS else 'MISSED'}")
    tab.close()
    tab.deleteLater()
    QApplication.processEvents()
    del application


if __name__ == "__main__":
    main()
