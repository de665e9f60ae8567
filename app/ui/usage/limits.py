"""A project's rate limit and monthly budget as the Usage tab edits them (checked before anything is sent;
what the service refuses is shown in its words), and the budgets' alerts."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.usage.limits_form import FormProblem, LimitsChange, limits_change
from app.services.usage.report import Budget, ProjectLimits

from .table import money


def _text(value: int | None) -> str:
    return "" if value is None else str(value)


class LimitsEditor(QGroupBox):
    """Project, requests and tokens per minute, monthly budget, alert thresholds, hard stop, Save."""

    project_chosen = Signal(str)  # a project id, to read its limits
    save_requested = Signal(str, object)  # a project id and the checked LimitsChange

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Limits and budget", parent)
        self.setObjectName("usage_limits")
        self.project = QComboBox(objectName="limits_project")
        self.rpm = QLineEdit(objectName="limits_rpm", placeholderText="no limit")
        self.tpm = QLineEdit(objectName="limits_tpm", placeholderText="no limit")
        self.budget = QLineEdit(objectName="limits_budget", placeholderText="no budget")
        self.thresholds = QLineEdit("50, 80, 100", objectName="limits_thresholds")
        self.hard_limit = QCheckBox("Stop it at 100 %", objectName="limits_hard")
        self.save_button = QPushButton("Save &limits", objectName="limits_save")
        self.status = QLabel("", objectName="limits_status", wordWrap=True)
        form = QFormLayout(self)
        form.addRow("&Project", self.project)
        form.addRow("Requests/min", self.rpm)
        form.addRow("Tokens/min", self.tpm)
        form.addRow("&Budget $/month", self.budget)
        form.addRow("Alerts at (%)", self.thresholds)
        form.addRow("", self.hard_limit)
        form.addRow(self.save_button)
        form.addRow(self.status)
        self.project.currentIndexChanged.connect(self._chosen)
        self.save_button.clicked.connect(self.save)

    def fill_projects(self, names: dict[str, str]) -> None:
        current = self.project.currentData()
        self.project.blockSignals(True)
        self.project.clear()
        for project_id, name in sorted(names.items(), key=lambda pair: pair[1].casefold()):
            self.project.addItem(name, project_id)
        found = self.project.findData(current)
        self.project.setCurrentIndex(max(found, 0))
        self.project.blockSignals(False)
        if self.project.currentData() != current and self.project.count():
            self._chosen()

    def _chosen(self) -> None:
        project_id = self.project.currentData()
        if isinstance(project_id, str):
            self.status.setText("")
            self.project_chosen.emit(project_id)

    def show_limits(self, limits: ProjectLimits) -> None:
        if limits.project_id != self.project.currentData():
            return  # read for a project no longer chosen
        self.rpm.setText(_text(limits.requests_per_minute))
        self.tpm.setText(_text(limits.tokens_per_minute))
        budget = limits.budget
        self.budget.setText("" if budget is None else f"{budget.monthly_usd:g}")
        if budget is not None:
            self.thresholds.setText(", ".join(str(t) for t in budget.thresholds))
        self.hard_limit.setChecked(budget is not None and budget.hard_limit)

    def show_problem(self, sentence: str) -> None:
        self.status.setText(sentence)

    def save(self) -> None:
        project_id = self.project.currentData()
        if not isinstance(project_id, str):
            self.status.setText("Choose a project first.")
            return
        try:
            change: LimitsChange = limits_change(
                self.rpm.text(),
                self.tpm.text(),
                self.budget.text(),
                self.thresholds.text(),
                self.hard_limit.isChecked(),
            )
        except FormProblem as problem:
            self.status.setText(str(problem))
            return
        self.status.setText("Saving…")
        self.save_requested.emit(project_id, change)


def _day(moment: int) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%b %d %H:%M UTC")


def budget_line(budget: Budget, names: dict[str, str]) -> str:
    owner = (
        "The organization" if budget.project_id is None else names.get(budget.project_id, budget.project_id)
    )
    line = (
        f"{owner}: {money(budget.spent_usd)} of {money(budget.monthly_usd)} this month ({budget.percent:g} %)"
    )
    if budget.alerts:
        line += "; alerts: " + ", ".join(f"{a.threshold} % on {_day(a.at)}" for a in budget.alerts)
    if budget.stopped:
        line += " — stopped: requests are refused until the month ends or the budget is raised"
    return line


class BudgetAlerts(QLabel):
    """Each budget's spend this month and the thresholds it reached."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setObjectName("usage_alerts")
        self.setWordWrap(True)

    def show_budgets(self, budgets: Sequence[Budget], names: dict[str, str]) -> None:
        lines = [budget_line(budget, names) for budget in budgets]
        self.setText("\n".join(lines) if lines else "No budget is set.")


def side_panel(editor: LimitsEditor, alerts: BudgetAlerts) -> QWidget:
    panel = QWidget()
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(0, 0, 0, 0)
    box = QGroupBox("Budget alerts")
    QVBoxLayout(box).addWidget(alerts)
    layout.addWidget(editor)
    layout.addWidget(box)
    layout.addStretch(1)
    return panel
