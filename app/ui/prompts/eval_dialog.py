"""The Evals window: a prompt's versions tried on a dataset across models. The grid (rows × variants) fills as
answers arrive, each cell pass or fail with the answer, time, tokens and cost on hover; a summary per variant
with what changed against the previous run (the run shown before, or one chosen with Compare with…), the
cells that flipped highlighted; Stop at any time; a run saved, reopened and exported as CSV or JSON; a cell
opened in the Playground as it was sent."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.evals.compare import Baseline
from app.core.evals.graders import GraderError
from app.core.evals.run import EvalRun
from app.core.evals.sent import SentRequest
from app.core.prompts.draft import StoredPrompt
from app.services.prompts.evals import EvalService
from app.ui.screen_fit import fit_to_screen
from app.ui.widgets.flow_layout import flow_row

from .eval_grid import EvalGrid, cost_text
from .eval_setup import EvalSetup

SUMMARY_PAUSE_MS = 100


class EvalDialog(QDialog):
    # A cell's request as it was sent (prompt version, the row's values, model, options, body): the main
    # window opens it in the Playground.
    open_in_playground = Signal(SentRequest)

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
        self.previous: EvalRun | None = None  # what the run shown is compared with
        # The summary is redrawn at most every SUMMARY_PAUSE_MS while answers arrive (each redraw reads every
        # cell): the grid itself is drawn a cell at a time.
        self._summary_timer = QTimer(self, singleShot=True, interval=SUMMARY_PAUSE_MS)
        self._summary_timer.timeout.connect(self._summarise)
        self.setup = EvalSetup(versions, models)
        self.grid = EvalGrid()
        self.summary = QLabel("", objectName="eval_summary", wordWrap=True)
        self.status = QLabel("", objectName="eval_status", wordWrap=True)
        self.run_button = QPushButton("&Run", objectName="eval_run")
        self.stop_button = QPushButton("S&top", objectName="eval_stop", enabled=False)
        self.save_button = QPushButton("Sa&ve run…", objectName="eval_save", enabled=False)
        self.open_button = QPushButton("&Open run…", objectName="eval_open")
        self.export_button = QPushButton("&Export CSV…", objectName="eval_export", enabled=False)
        self.compare_button = QPushButton("&Compare with…", objectName="eval_compare", enabled=False)
        self.playground_button = QPushButton(
            "Open in &Playground", objectName="eval_playground", enabled=False
        )
        self.playground_button.setToolTip(
            "The chosen cell's request, as it was sent (or double-click a cell)"
        )
        buttons = flow_row(
            self.run_button,
            self.stop_button,
            self.save_button,
            self.open_button,
            self.export_button,
            self.compare_button,
            self.playground_button,
        )
        results = QWidget()
        column = QVBoxLayout(results)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(buttons)
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
        self.compare_button.clicked.connect(self._compare_with)
        self.playground_button.clicked.connect(
            lambda: self.open_cell(self.grid.currentRow(), self.grid.currentColumn())
        )
        self.grid.cellDoubleClicked.connect(self.open_cell)
        self.grid.currentCellChanged.connect(lambda row, column, *_: self._cell_chosen(row, column))
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
        """Show `run`; the run shown before it, if it has answers, is what it is compared with."""
        if self.run is not None and self.run.cells and self.run is not run:
            self.previous = self.run
        self.run = run
        self._compare()

    def _compare(self) -> None:
        """Line the run shown up with the previous one, and draw both the grid and the summary again."""
        assert self.run is not None
        baseline = Baseline(self.run, self.previous) if self.previous is not None else None
        self.grid.show_run(self.run, baseline)
        self._cell_chosen(self.grid.currentRow(), self.grid.currentColumn())
        self._summarise()

    def _cell_done(self, row: int, variant: int) -> None:
        self.grid.cell_done(row, variant)
        if (row, variant) == (self.grid.currentRow(), self.grid.currentColumn()):
            self._cell_chosen(row, variant)  # the cell chosen before its answer came has one now
        if not self._summary_timer.isActive():
            self._summary_timer.start()

    def _summarise(self) -> None:
        if self.run is None:
            return
        baseline = self.grid.baseline
        deltas = baseline.deltas(self.grid.flips) if baseline is not None else []
        lines = []
        for index, s in enumerate(self.run.summary()):
            lines.append(
                f"{s.variant}: {s.passed}/{s.done} passed ({s.pass_rate:.0%}), median "
                f"{s.median_seconds * 1000:.0f} ms, {s.tokens} tokens, {cost_text(s.cost)}"
            )
            delta = deltas[index] if index < len(deltas) else None
            if delta is not None:
                lines.append("    " + delta.text())
        self.summary.setText("\n".join(lines))
        self.save_button.setEnabled(bool(self.run.cells))
        self.export_button.setEnabled(bool(self.run.cells))
        self.compare_button.setEnabled(True)

    def _cell_chosen(self, row: int, column: int) -> None:
        self.playground_button.setEnabled(self.run is not None and (row, column) in self.run.cells)

    def open_cell(self, row: int, variant: int) -> None:
        """The cell's request, as it was sent, to the Playground (a cell not sent yet has none)."""
        if self.run is not None and (row, variant) in self.run.cells:
            self.open_in_playground.emit(self.run.sent(row, variant))

    def _finished(self, completed: bool) -> None:
        self._summary_timer.stop()
        self._summarise()  # the last answers' figures, without the pause
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

    def _compare_with(self) -> None:
        name, _ = QFileDialog.getOpenFileName(self, "Compare with a saved run", "", "Eval runs (*.json)")
        previous = self.service.reopen(Path(name)) if name else None
        if previous is not None and self.run is not None:
            self.previous = previous
            self._compare()
            self.status.setText(f"Compared with {Path(name).name}.")

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
