"""What a run changed against the run before it: per variant, the pass rate, median time, tokens and cost
against its counterpart; per cell, whether it flipped from pass to fail or from fail to pass.

Rows are matched by their values and expected answer (a dataset with a row added or moved still lines
up); a variant by its label, else by its place when both runs have as many variants (a new prompt version
against the old one, on the same models). A row or variant with no counterpart has nothing to compare.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from app.core.evals.dataset import Row
from app.core.evals.run import EvalRun, Summary


class Flip(StrEnum):
    TO_PASS = "fail→pass"
    TO_FAIL = "pass→fail"


def _signed(value: float, unit: str = "", digits: int = 0) -> str:
    sign = "+" if value > 0 else "−" if value < 0 else "±"
    return f"{sign}{abs(value):,.{digits}f}{unit}"


@dataclass(frozen=True)
class VariantDelta:
    """One variant against its counterpart in the run before: each figure is now minus then."""

    current: Summary
    previous: Summary
    to_pass: int = 0
    to_fail: int = 0

    @property
    def pass_rate(self) -> float:
        return self.current.pass_rate - self.previous.pass_rate

    @property
    def median_seconds(self) -> float:
        return self.current.median_seconds - self.previous.median_seconds

    @property
    def tokens(self) -> int:
        return self.current.tokens - self.previous.tokens

    @property
    def cost(self) -> float | None:
        if self.current.cost is None or self.previous.cost is None:
            return None
        return self.current.cost - self.previous.cost

    def text(self) -> str:
        parts = [
            f"pass rate {_signed(self.pass_rate * 100, ' pts')}",
            f"median {_signed(self.median_seconds * 1000, ' ms')}",
            f"tokens {_signed(self.tokens)}",
        ]
        if self.cost is not None:
            parts.append(f"cost {_signed(self.cost, digits=4).replace('+', '+$').replace('−', '−$')}")
        parts.append(f"{self.to_pass} {Flip.TO_PASS}, {self.to_fail} {Flip.TO_FAIL}")
        return "vs previous run: " + ", ".join(parts)


@dataclass
class Comparison:
    deltas: list[VariantDelta | None] = field(default_factory=list)  # per variant of the current run
    flips: dict[tuple[int, int], Flip] = field(default_factory=dict)  # (row, variant) of the current run


def _row_key(row: Row) -> tuple[tuple[tuple[str, str], ...], str | None]:
    return tuple(sorted(row.values.items())), row.expected


def _counterparts(current: EvalRun, previous: EvalRun) -> list[int | None]:
    labels = {variant.label: index for index, variant in enumerate(previous.variants)}
    same_count = len(current.variants) == len(previous.variants)
    return [
        labels.get(variant.label, index if same_count else None)
        for index, variant in enumerate(current.variants)
    ]


def compare(current: EvalRun, previous: EvalRun) -> Comparison:
    rows: dict[tuple[tuple[tuple[str, str], ...], str | None], int] = {}
    for index, row in enumerate(previous.dataset.rows):
        rows.setdefault(_row_key(row), index)
    matched = _counterparts(current, previous)
    flips: dict[tuple[int, int], Flip] = {}
    for (row, variant), cell in current.cells.items():
        then_row, then_variant = rows.get(_row_key(current.dataset.rows[row])), matched[variant]
        then = None if then_row is None or then_variant is None else previous.cells.get((then_row, then_variant))
        if then is not None and then.passed != cell.passed:
            flips[(row, variant)] = Flip.TO_PASS if cell.passed else Flip.TO_FAIL
    now_summary, then_summary = current.summary(), previous.summary()
    deltas: list[VariantDelta | None] = []
    for variant, then_variant in enumerate(matched):
        if then_variant is None:
            deltas.append(None)
            continue
        mine = [flip for (_, v), flip in flips.items() if v == variant]
        deltas.append(
            VariantDelta(
                now_summary[variant],
                then_summary[then_variant],
                mine.count(Flip.TO_PASS),
                mine.count(Flip.TO_FAIL),
            )
        )
    return Comparison(deltas, flips)
