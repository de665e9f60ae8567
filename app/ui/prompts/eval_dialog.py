"""The Evals window: a prompt's versions tried on a dataset across models. The grid (rows × variants) fills as
answers arrive, each cell pass or fail with the answer, time and tokens on hover; a summary per variant;
Stop at any time; a run saved, reopened and exported as CSV or JSON."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.evals.graders import GraderError
from app.core.evals.run import Cell, EvalRun
from app.core.prompts.draft import StoredPrompt
from app.services.prompts.evals import EvalService
from app.ui.colours import Ink, qcolor
from app.ui.screen_fit import fit_to_screen

from .eval_setup import EvalSetup


def cell_tip(cell: Cell) -> str:
    figures = f"{cell.seconds * 1000:.0f} ms, {cell.input_tokens} in + {cell.output_tokens} out tokens"
    lines = [cell.error or cell.answer, "", figures, *cell.reasons]
    return "\n".join(lines)


class EvalDialog(QDialog):
    def __init__(
        self,
        service: EvalService,
        versions: list[StoredPrompt],
        models: list[str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, objectName="eval_dialog")
        self.setWindowTitle(f"Evaluate {versions[0].name}" if versions else "Evaluate")
        self.service = service
        self.run: EvalRun | None = None
        self.setup = EvalSetup(versions, models)
        self.grid = QTableWidget(objectName="eval_grid")
        self.grid.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.summary = QLabel("", objectName="eval_summary", wordWrap=True)
        self.status = QLabel("", objectName="eval_status", wordWrap=True)
        self.run_button = QPushButton("&Run", objectName="eval_run")
        self.stop_button = QPushButton("S&top", objectName="eval_stop", enabled=False)
        self.save_button = QPushButton("Sa&ve run…", objectName="eval_save", enabled=False)
        self.open_button = QPushButton("&Open run…", objectName="eval_open")
        self.export_button = QPushButton("&Export CSV…", objectName="eval_export", enabled=False)
        buttons = QHBoxLayout()
        for button in (
            self.run_button,
            self.stop_button,
            self.save_button,
            self.open_button,
            self.export_button,
        ):
            buttons.addWidget(button)
        buttons.addStretch(1)
        results = QWidget()
        column = QVBoxLayout(results)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(buttons)
        column.addWidget(self.grid, 1)
        column.addWidget(self.summary)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.setup)
        splitter.addWidget(results)
        splitter.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        self.run_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(service.stop)
        self.save_button.clicked.connect(self._save)
        self.open_button.clicked.connect(self._open)
        self.export_button.clicked.connect(self._export)
        self.setup.load_button.clicked.connect(self._load_dataset)
        service.cell_done.connect(self._cell_done)
        service.finished.connect(self._finished)
        service.failed.connect(self.status.setText)
        fit_to_screen(self, 1200, 700)

    def start(self) -> None:
        dataset, variants = self.setup.dataset(), self.setup.variants()
        try:
            graders = self.setup.grader_list()
        except GraderError as error:
            self.status.setText(str(error))
            return
        if not dataset.rows or not variants:
            self.status.setText("Type or load at least one row, and choose a version and a model.")
            return
        self.show_run(EvalRun(dataset, variants, graders, concurrency=self.setup.concurrency.value()))
        assert self.run is not None
        self.status.setText(f"Running {self.run.size} requests, {self.run.concurrency} at a time…")
        self.run_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self.service.start(self.run)

    def show_run(self, run: EvalRun) -> None:
        self.run = run
        self.grid.clear()
        self.grid.setRowCount(len(run.dataset.rows))
        self.grid.setColumnCount(len(run.variants))
        self.grid.setHorizontalHeaderLabels([variant.label for variant in run.variants])
        self.grid.setVerticalHeaderLabels([", ".join(row.values.values())[:40] for row in run.dataset.rows])
        for row, variant in run.cells:
            self._cell_done(row, variant)
        self._summarise()

    def _cell_done(self, row: int, variant: int) -> None:
        if self.run is None or (row, variant) not in self.run.cells:
            return
        cell = self.run.cells[(row, variant)]
        item = QTableWidgetItem("error" if cell.error else "pass" if cell.passed else "fail")
        item.setForeground(qcolor(Ink.GOOD if cell.passed else Ink.BAD))
        item.setToolTip(cell_tip(cell))
        self.grid.setItem(row, variant, item)
        self._summarise()

    def _summarise(self) -> None:
        if self.run is None:
            return
        lines = [
            f"{s.variant}: {s.passed}/{s.done} passed ({s.pass_rate:.0%}), median {s.median_seconds * 1000:.0f} ms, "
            f"{s.input_tokens + s.output_tokens} tokens"
            for s in self.run.summary()
        ]
        self.summary.setText("\n".join(lines))
        self.save_button.setEnabled(bool(self.run.cells))
        self.export_button.setEnabled(bool(self.run.cells))

    def _finished(self, completed: bool) -> None:
        self.run_button.setEnabled(True)
        self.stop_button.setEnabled(False)
        if self.run is not None:
            done = len(self.run.cells)
            verb = "Done" if completed else "Stopped"
            self.status.setText(
                f"{verb}: {done} of {self.run.size} answered, pass rate {self.run.pass_rate():.0%}."
            )

    def _load_dataset(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Load a dataset", "", "Datasets (*.csv *.jsonl *.json)")
        dataset = self.service.load_dataset(Path(name)) if name else None
        if dataset is not None:
            self.setup.show_dataset(dataset)

    def _save(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, "Save the run", "eval-run.json", "Eval runs (*.json)")
        if name and self.run is not None:
            self.service.save(self.run, Path(name))

    def _open(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Open a run", "", "Eval runs (*.json)")
        run = self.service.reopen(Path(name)) if name else None
        if run is not None:
            self.show_run(run)
            self.status.setText(f"Reopened: {len(run.cells)} of {run.size} answered.")

    def _export(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self, "Export the run", "eval-run.csv", "CSV (*.csv);;JSON (*.json)"
        )
        if not name or self.run is None:
            return
        if name.endswith(".json"):
            self.service.save(self.run, Path(name))
        else:
            self.service.export_csv(self.run, Path(name))
