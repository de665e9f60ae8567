"""The Usage tab: a range (today, 7 days, 30 days, this month or custom days), a grouping (project, model or
API key) and a metric (tokens or cost); the chart stacks the groups over the range's buckets with the period
before as a line, the table below sums them, and the side edits a project's limits and shows the alerts."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.usage.limits_form import LimitsChange
from app.core.usage.ranges import RangeKind, TimeRange, bucket_label, time_range
from app.core.usage.series import Grouping, Metric, chart_series, table_rows
from app.core.usage.table_csv import table_csv
from app.services.session.session import ConsoleSession
from app.services.usage.report import UsageService

from .chart import UsageChart
from .limits import BudgetAlerts, LimitsEditor, side_panel
from .table import UsageTable


class UsageTab(QWidget):
    def __init__(self, session: ConsoleSession, service: UsageService | None = None) -> None:
        super().__init__(objectName="usage_tab")
        self.session = session
        self.service = service or UsageService(session, self)
        self.range_box = QComboBox(objectName="usage_range")
        for kind in RangeKind:
            self.range_box.addItem(kind.value, kind)
        self.range_box.setCurrentIndex(1)  # 7 days: what an admin asks first
        today = QDate.currentDate()
        self.first_day = QDateEdit(today.addDays(-6), objectName="usage_first", calendarPopup=True)
        self.last_day = QDateEdit(today, objectName="usage_last", calendarPopup=True)
        self.group_box = QComboBox(objectName="usage_group")
        for grouping in Grouping:
            self.group_box.addItem(grouping.label, grouping)
        self.metric_box = QComboBox(objectName="usage_metric")
        for metric in Metric:
            self.metric_box.addItem(metric.value, metric)
        self.refresh_button = QPushButton("Re&fresh", objectName="usage_refresh")
        self.export_button = QPushButton("E&xport CSV…", objectName="usage_export")
        self.status = QLabel("", objectName="usage_status", wordWrap=True)
        self.chart = UsageChart()
        self.table = UsageTable()
        self.limits = LimitsEditor()
        self.alerts = BudgetAlerts()
        self._layout()
        self.range_box.currentIndexChanged.connect(self._range_changed)
        self.first_day.dateChanged.connect(self._custom_changed)
        self.last_day.dateChanged.connect(self._custom_changed)
        self.group_box.currentIndexChanged.connect(self.redraw)
        self.metric_box.currentIndexChanged.connect(self.redraw)
        self.refresh_button.clicked.connect(self.refresh)
        self.export_button.clicked.connect(self._export)
        self.service.loaded.connect(self._loaded)
        self.service.failed.connect(self._failed)
        self.service.limits_read.connect(self.limits.show_limits)
        self.service.saved.connect(self._saved)
        self.limits.project_chosen.connect(self.service.read_limits)
        self.limits.save_requested.connect(self._save)
        session.client_changed.connect(self.refresh)
        self._range_changed()

    def _layout(self) -> None:
        controls = QHBoxLayout()
        for label, widget in (
            ("&Range", self.range_box),
            ("&Group by", self.group_box),
            ("Sho&w", self.metric_box),
        ):
            caption = QLabel(label)
            caption.setBuddy(widget)
            controls.addWidget(caption)
            controls.addWidget(widget)
            if widget is self.range_box:
                controls.addWidget(self.first_day)
                controls.addWidget(self.last_day)
        controls.addStretch(1)
        controls.addWidget(self.refresh_button)
        controls.addWidget(self.export_button)
        usage = QSplitter(Qt.Orientation.Vertical)
        usage.addWidget(self.chart)
        usage.addWidget(self.table)
        usage.setStretchFactor(0, 3)
        usage.setStretchFactor(1, 2)
        usage.setSizes([600, 400])  # the chart first: the table is a few rows for a few groups
        body = QSplitter(Qt.Orientation.Horizontal, objectName="usage_split")
        body.addWidget(usage)
        body.addWidget(side_panel(self.limits, self.alerts))
        body.setStretchFactor(0, 4)
        body.setStretchFactor(1, 1)
        body.setSizes([1100, 250])
        layout = QVBoxLayout(self)
        layout.addLayout(controls)
        layout.addWidget(self.status)
        layout.addWidget(body, 1)

    def span(self) -> TimeRange:
        kind: RangeKind = self.range_box.currentData()
        first, last = self.first_day.date().toPython(), self.last_day.date().toPython()
        return time_range(kind, int(time.time()), first, last)

    def _range_changed(self) -> None:
        custom = self.range_box.currentData() is RangeKind.CUSTOM
        self.first_day.setVisible(custom)
        self.last_day.setVisible(custom)
        self.refresh()

    def _custom_changed(self) -> None:
        if self.range_box.currentData() is RangeKind.CUSTOM:
            self.refresh()

    def refresh(self) -> None:
        try:
            span = self.span()
        except ValueError as problem:
            self.status.setText(str(problem))
            return
        self.status.setText("Reading the usage…")
        self.service.refresh(span)

    def _loaded(self) -> None:
        self.status.setText("")
        report = self.service.report
        if report is not None:
            self.limits.fill_projects(report.names)
            self.alerts.show_budgets(report.budgets, report.names)
        self.redraw()

    def redraw(self) -> None:
        """The chart and the table from the last read, in the grouping and metric chosen (no request)."""
        report = self.service.report
        if report is None:
            return
        grouping: Grouping = self.group_box.currentData()
        metric: Metric = self.metric_box.currentData()
        span = report.span
        series = chart_series(report.rows, span, grouping, metric, report.prices, report.names)
        before = chart_series(report.previous, span.previous(), grouping, metric, report.prices, report.names)
        previous = [sum(values) for values in zip(*(one.values for one in before), strict=True)]
        labels = [bucket_label(start, span.width) for start in span.buckets]
        unit = "per hour" if span.width_name == "1h" else "per day"
        title = f"{metric.value} {unit}, by {grouping.label.lower()}"
        self.chart.show_series(
            title, labels, series, previous or [0.0] * len(labels), money=metric is Metric.COST
        )
        self.table.show_rows(
            grouping.label, table_rows(report.rows, report.previous, grouping, report.prices, report.names)
        )

    def _failed(self, sentence: str) -> None:
        if self.limits.status.text() == "Saving…":
            self.limits.show_problem(sentence)
        else:
            self.status.setText(sentence)

    def _save(self, project_id: str, change: LimitsChange) -> None:
        self.service.save_limits(project_id, change)

    def _saved(self, sentence: str) -> None:
        self.limits.show_problem(sentence)
        self.refresh()  # the budgets' spend and alerts as the service holds them now

    def csv_text(self) -> str:
        return table_csv(self.table.rows)

    def _export(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(self, "Export usage", "usage.csv", "CSV (*.csv)")
        if chosen:
            try:
                Path(chosen).write_text(self.csv_text(), encoding="utf-8", newline="")
            except OSError as error:
                self.status.setText(f"The CSV was not saved: {error.strerror or error}")
