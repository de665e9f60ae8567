"""The Usage tab's chart, drawn with Qt Charts (PySide6-Addons' QtCharts, the one Addons module the
frozen app keeps: packaging/service-console.spec): stacked bars of tokens or cost per bucket, one set per
project, model or key, and the previous period's totals as a dashed line over the same buckets."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSet,
    QChart,
    QChartView,
    QLineSeries,
    QStackedBarSeries,
    QValueAxis,
)
from PySide6.QtCore import QMargins, QPointF, Qt
from PySide6.QtGui import QPainter, QPen, QResizeEvent
from PySide6.QtWidgets import QWidget

from app.core.usage.series import Series

PREVIOUS = "Previous period"
MOST_LABELS = 16  # more bucket labels than this overlap: the others are left empty


class UsageChart(QChartView):
    """`show(labels, series, previous)`; `stack` and `previous_line` are what it draws, for a test to read."""

    def __init__(self, parent: QWidget | None = None) -> None:
        self.chart_ = QChart()
        super().__init__(self.chart_, parent)
        self.setObjectName("usage_chart")
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumHeight(220)
        self.chart_.setMargins(QMargins(4, 4, 4, 4))
        self.chart_.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.chart_.setAnimationOptions(QChart.AnimationOption.NoAnimation)  # a redraw at once, every time
        self.stack = QStackedBarSeries()
        self.previous_line = QLineSeries()
        self.previous_line.setName(PREVIOUS)
        pen = QPen(self.palette().text().color(), 1.5, Qt.PenStyle.DashLine)
        self.previous_line.setPen(pen)
        self.x_axis = QBarCategoryAxis()
        self.y_axis = QValueAxis()
        self.unit_scale = 1.0  # the values are drawn divided by it (thousands or millions of tokens)
        self.chart_.addSeries(self.stack)
        self.chart_.addSeries(self.previous_line)
        self.chart_.addAxis(self.x_axis, Qt.AlignmentFlag.AlignBottom)
        self.chart_.addAxis(self.y_axis, Qt.AlignmentFlag.AlignLeft)
        for series in (self.stack, self.previous_line):
            series.attachAxis(self.x_axis)
            series.attachAxis(self.y_axis)

    def show_series(
        self,
        title: str,
        labels: Sequence[str],
        series: Sequence[Series],
        previous: Sequence[float],
        money: bool = False,
    ) -> None:
        """The series stacked in the order given; tokens are drawn in thousands or millions (the axis says
        which) so its labels stay short, dollars as they are."""
        totals = [sum(values) for values in zip(*(one.values for one in series), strict=True)] or [0.0]
        top = max([*totals, *previous, 0.0])
        scale, unit = (1.0, "USD") if money else _scale(top)
        self.chart_.setTitle(title)
        self.y_axis.setTitleText(unit)
        self.y_axis.setLabelFormat("%.2f" if money or top / scale < 10 else "%.0f")
        self.stack.clear()
        sets = []
        for one in series:
            bar_set = QBarSet(one.name)
            bar_set.append([value / scale for value in one.values])
            sets.append(bar_set)
        self.stack.append(sets)
        step = max(1, -(-len(labels) // MOST_LABELS))
        # Category names must differ: the skipped ones are blanks of growing length.
        shown = [label if index % step == 0 else " " * (index + 1) for index, label in enumerate(labels)]
        self.x_axis.setCategories(shown)
        self._tilt_labels()
        self.previous_line.replace([QPointF(index, value / scale) for index, value in enumerate(previous)])
        self.y_axis.setRange(0, top * 1.1 / scale if top > 0 else 1)
        self.y_axis.applyNiceNumbers()
        self.unit_scale = scale

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._tilt_labels()

    def _tilt_labels(self) -> None:
        """Labels slanted when they would not fit side by side (an 800x600 window, 16 days)."""
        shown = min(self.x_axis.count(), MOST_LABELS)
        narrow = shown > 0 and self.width() / shown < 8 * self.fontMetrics().averageCharWidth()
        self.x_axis.setLabelsAngle(-45 if narrow else 0)

    def set_names(self) -> list[str]:
        """The stacked sets' names, bottom first."""
        return [bar_set.label() for bar_set in self.stack.barSets()]

    def set_values(self, name: str) -> list[float]:
        """A set's values in the series' own unit (tokens or US dollars, not the axis's thousands)."""
        found = next(bar_set for bar_set in self.stack.barSets() if bar_set.label() == name)
        return [found.at(index) * self.unit_scale for index in range(found.count())]


def _scale(top: float) -> tuple[float, str]:
    if top >= 2_000_000:
        return 1_000_000.0, "M tokens"
    if top >= 2_000:
        return 1000.0, "k tokens"
    return 1.0, "tokens"
