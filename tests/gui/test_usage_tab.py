"""The Usage tab as an admin uses it, on the embedded sandbox: answers from two models drawn as stacked
series (read back from the chart, and a rendered image that is not blank), the range and the grouping
changing the series, the table's CSV, and a project's limits and budget sent, with the sandbox's refusal of
a bad value shown in its words."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.usage.ranges import RangeKind
from app.core.usage.series import Grouping, Metric
from app.ui.main_window import MainWindow
from app.ui.usage.tab import UsageTab


def usage_tab(console: MainWindow) -> UsageTab:
    view = {action.text(): action for action in console.menus.view_menu.actions()}
    assert view["Usage"].shortcut().toString() == "Ctrl+4"
    view["Usage"].trigger()
    assert console.tabs.currentIndex() == 3
    tab = console.tabs.widget(3)
    assert isinstance(tab, UsageTab)
    return tab


def answer(qtbot: QtBot, console: MainWindow, model: str, times: int) -> list[int]:
    """`times` answers from `model`; their total tokens, as each response's own usage says."""
    client = console.session.client
    assert client is not None
    totals: list[int] = []

    async def send() -> None:
        for _ in range(times):
            made: Any = await client.responses.create({"model": model, "input": "Count to three."})
            totals.append(made.usage.total_tokens)

    task = console.session.tasks.start("test.answers", send())
    qtbot.waitUntil(task.done, timeout=15000)
    task.result()
    return totals


def choose(box: Any, data: object) -> None:
    box.setCurrentIndex(box.findData(data))


def loaded(qtbot: QtBot, tab: UsageTab) -> None:
    tab.service.report = None
    tab.refresh()
    qtbot.waitUntil(lambda: tab.service.report is not None, timeout=10000)


def test_the_chart_stacks_the_models_and_follows_range_and_grouping(
    qtbot: QtBot, console: MainWindow
) -> None:
    pro = sum(answer(qtbot, console, "service-pro", 3))
    mini = sum(answer(qtbot, console, "service-think-mini", 2))
    tab = usage_tab(console)
    choose(tab.range_box, RangeKind.TODAY)
    choose(tab.group_box, Grouping.MODEL)
    loaded(qtbot, tab)

    largest_first = (
        ["service-pro", "service-think-mini"] if pro >= mini else ["service-think-mini", "service-pro"]
    )
    assert tab.chart.set_names() == largest_first
    hourly = tab.chart.set_values("service-pro")
    assert len(hourly) == 24 and sum(hourly) == pro  # today in hours, every token of the answers
    assert sum(tab.chart.set_values("service-think-mini")) == mini
    assert tab.chart.previous_line.count() == 24  # yesterday beside it

    image = tab.chart.grab().toImage()
    colours = {image.pixel(x, y) for x in range(0, image.width(), 4) for y in range(0, image.height(), 4)}
    assert image.width() > 100 and len(colours) > 8, "the chart rendered blank"

    choose(tab.group_box, Grouping.PROJECT)  # drawn again from the same read
    assert len(tab.chart.set_names()) == 1
    assert sum(tab.chart.set_values(tab.chart.set_names()[0])) == pro + mini

    choose(tab.metric_box, Metric.COST)
    cost = sum(tab.chart.set_values(tab.chart.set_names()[0]))
    assert 0 < cost < 1  # a few hundred tokens at dollars per million

    choose(tab.range_box, RangeKind.WEEK)  # a new read, in days
    qtbot.waitUntil(lambda: tab.service.report is not None and len(tab.service.report.span.buckets) == 7)
    assert len(tab.chart.set_values(tab.chart.set_names()[0])) == 7

    choose(tab.metric_box, Metric.TOKENS)
    tab.table.sortByColumn(6, Qt.SortOrder.DescendingOrder)
    assert tab.table.column_texts(6) == [f"{pro + mini:,}"]
    lines = tab.csv_text().splitlines()
    assert lines[0].startswith("group,requests,input_tokens,") and len(lines) == 2
    assert lines[1].split(",")[1] == "5" and lines[1].split(",")[6] == str(pro + mini)


def test_limits_and_budget_are_sent_and_a_refusal_is_shown(qtbot: QtBot, console: MainWindow) -> None:
    tab = usage_tab(console)
    with qtbot.waitSignal(tab.service.limits_read, timeout=10000):  # the first project's, before typing
        loaded(qtbot, tab)
    editor = tab.limits
    project_id = editor.project.currentData()

    editor.rpm.setText("abc")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert "whole number" in editor.status.text()  # checked here: nothing sent

    editor.rpm.setText("120")
    editor.budget.setText("25")
    editor.thresholds.setText("50, 5000")  # a whole percent, past the sandbox's 1000
    with qtbot.waitSignal(tab.service.limits_read, timeout=10000):  # read back after the refusal
        qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    assert editor.status.text().startswith("The limits were not saved")
    assert "1000" in editor.status.text()  # the sandbox's own words
    assert (editor.rpm.text(), editor.budget.text()) == ("", "")  # neither changed

    editor.rpm.setText("120")
    editor.budget.setText("25")
    editor.thresholds.setText("50, 80, 100")
    editor.hard_limit.setChecked(True)
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: "saved" in editor.status.text() and "not" not in editor.status.text(), timeout=10000
    )
    client = console.session.client
    assert client is not None
    read: dict[str, Any] = {}

    async def check() -> None:
        read["limits"] = await client.rate_limits.list(project_id)
        read["budgets"] = await client.budgets.list()

    task = console.session.tasks.start("test.check", check())
    qtbot.waitUntil(task.done, timeout=10000)
    wide = next(limit for limit in read["limits"] if limit.id == "rl-project")
    assert wide.max_requests_per_1_minute == 120
    budget = next(b for b in read["budgets"] if b.project_id == project_id)
    assert budget.monthly_usd == 25 and budget.hard_limit and list(budget.thresholds) == [50, 80, 100]
    qtbot.waitUntil(lambda: "of $25.00 this month" in tab.alerts.text(), timeout=10000)
