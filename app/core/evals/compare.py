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
            sign, amount = _signed(self.cost, digits=4)[0], _signed(self.cost, digits=4)[1:]
            parts.append(f"cost {sign}${amount}")
        parts.append(f"{self.to_pass} {Flip.TO_PASS}, {self.to_fail} {Flip.TO_FAIL}")
        return "vs previous run: " + ", ".join(parts)


@dataclass
class Comparison:
    deltas: list[VariantDelta | None] = field(default_factory=list)  # per variant of the current run
    flips: dict[tuple[int, int], Flip] = field(default_factory=dict)  # (row, variant) of the current run


RowKey = tuple[tuple[tuple[str, str], ...], str | None]


def _row_key(row: Row) -> RowKey:
    return tuple(sorted(row.values.items())), row.expected


class Baseline:
    """The run before, lined up with the current one once (its rows by their values, its variants by
    label or place), so that each answer's flip is found as it arrives without going over the run again."""

    def __init__(self, current: EvalRun, previous: EvalRun) -> None:
        self.current, self.previous = current, previous
        rows: dict[RowKey, int] = {}
        for index, given in enumerate(previous.dataset.rows):
            rows.setdefault(_row_key(given), index)
        self.rows = [rows.get(_row_key(row)) for row in current.dataset.rows]
        labels = {variant.label: index for index, variant in enumerate(previous.variants)}
        same_count = len(current.variants) == len(previous.variants)
        self.variants = [
            labels.get(variant.label, index if same_count else None)
            for index, variant in enumerate(current.variants)
        ]
        self._previous_summary = previous.summary()

    def flip(self, row: int, variant: int) -> Flip | None:
        """Whether the current run's cell turned the other way from its counterpart."""
        cell = self.current.cells.get((row, variant))
        then_row, then_variant = self.rows[row], self.variants[variant]
        if cell is None or then_row is None or then_variant is None:
            return None
        then = self.previous.cells.get((then_row, then_variant))
        if then is None or then.passed == cell.passed:
            return None
        return Flip.TO_PASS if cell.passed else Flip.TO_FAIL

    def comparison(self) -> Comparison:
        flips = {}
        for row, variant in self.current.cells:
            flip = self.flip(row, variant)
            if flip is not None:
                flips[(row, variant)] = flip
        return Comparison(self.deltas(flips), flips)

    def deltas(self, flips: dict[tuple[int, int], Flip]) -> list[VariantDelta | None]:
        out: list[VariantDelta | None] = []
        for variant, summary in enumerate(self.current.summary()):
            then_variant = self.variants[variant]
            if then_variant is None:
                out.append(None)
                continue
            mine = [flip for (_, v), flip in flips.items() if v == variant]
            out.append(
                VariantDelta(
                    summary,
                    self._previous_summary[then_variant],
                    mine.count(Flip.TO_PASS),
                    mine.count(Flip.TO_FAIL),
                )
            )
        return out


def compare(current: EvalRun, previous: EvalRun) -> Comparison:
    return Baseline(current, previous).comparison()
