"""The Evals window's grid: a row of the dataset by a variant, each cell pass, fail or error with its answer,
time, tokens and cost on hover; a cell that flipped against the previous run is marked and highlighted."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidget, QTableWidgetItem, QWidget

from app.core.evals.compare import Baseline, Flip
from app.core.evals.run import Cell, EvalRun
from app.ui.colours import Ink, qcolor

MARKS = {Flip.TO_PASS: " ▲", Flip.TO_FAIL: " ▼"}


def cost_text(cost: float | None) -> str:
    return "cost not known (no price for the model)" if cost is None else f"${cost:.6f}"


def cell_tip(cell: Cell, flip: Flip | None = None) -> str:
    figures = (
        f"{cell.seconds * 1000:.0f} ms, {cell.input_tokens} in + {cell.output_tokens} out tokens, "
        f"{cost_text(cell.cost)}"
    )
    lines = [cell.error or cell.answer, "", figures, *cell.reasons]
    if flip is not None:
        lines.append(f"Against the previous run: {flip} (highlighted).")
    lines.append("Double-click to open this request in the Playground.")
    return "\n".join(lines)


class EvalGrid(QTableWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="eval_grid")
        self.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.run: EvalRun | None = None
        self.baseline: Baseline | None = None
        self.flips: dict[tuple[int, int], Flip] = {}  # of the run shown, against the baseline

    def show_run(self, run: EvalRun, baseline: Baseline | None) -> None:
        """Every cell of `run`, each flip against `baseline` (the run before, lined up) marked."""
        self.run, self.baseline = run, baseline
        self.flips = baseline.comparison().flips if baseline is not None else {}
        self.clear()
        self.setRowCount(len(run.dataset.rows))
        self.setColumnCount(len(run.variants))
        self.setHorizontalHeaderLabels([variant.label for variant in run.variants])
        self.setVerticalHeaderLabels([", ".join(row.values.values())[:40] for row in run.dataset.rows])
        self.resizeColumnsToContents()  # each variant's whole label: its cells' words are shorter
        for row, variant in run.cells:
            self.show_cell(row, variant)

    def cell_done(self, row: int, variant: int) -> None:
        """A new answer: its flip found alone (the others stay as they were)."""
        flip = self.baseline.flip(row, variant) if self.baseline is not None else None
        if flip is not None:
            self.flips[(row, variant)] = flip
        self.show_cell(row, variant)

    def show_cell(self, row: int, variant: int) -> None:
        if self.run is None or (row, variant) not in self.run.cells:
            return
        cell = self.run.cells[(row, variant)]
        flip = self.flips.get((row, variant))
        word = "error" if cell.error else "pass" if cell.passed else "fail"
        item = QTableWidgetItem(word + (MARKS[flip] if flip else ""))
        item.setForeground(qcolor(Ink.GOOD if cell.passed else Ink.BAD))
        if flip is not None:
            item.setBackground(qcolor(Ink.HIGHLIGHT_BACKGROUND))
        item.setToolTip(cell_tip(cell, flip))
        self.setItem(row, variant, item)
