"""An eval run: every row of the dataset sent for every variant (a prompt version × a model × options), at
most `concurrency` at a time, each answer graded as it arrives; a summary per variant; saved and reopened
as JSON, exported as CSV.

The run is a coroutine: Stop cancels it, and the cells already answered stay. A request that fails is a
failed cell with its error, not the end of the run.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from app.api.usage import ModelPrice
from app.core.evals.dataset import Dataset, Row
from app.core.evals.graders import Grader, Judge, parse_grader
from app.core.evals.sent import SentRequest
from app.core.playground.cost import PriceBook, answer_cost
from app.core.playground.figures import Figures
from app.core.prompts.draft import StoredPrompt, prompt_request

if TYPE_CHECKING:
    from app.api.wire import Response

FORMAT = 1  # of a saved run


@dataclass(frozen=True)
class Answer:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of the input, priced apart as the Playground prices them

    @classmethod
    def of(cls, response: Response) -> Answer:
        """A response's text and token counts (the window and the command line read them the same way)."""
        usage = response.usage
        if usage is None:
            return cls(response.output_text)
        return cls(response.output_text, usage.input_tokens, usage.output_tokens, usage.cached_tokens)


# A Responses API body -> its answer; raises when the request fails.
Send = Callable[[dict[str, Any]], Awaitable[Answer]]


@dataclass(frozen=True)
class Variant:
    prompt: StoredPrompt
    model: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        options = " ".join(f"{name}={value}" for name, value in sorted(self.options.items()))
        return f"{self.prompt.name} v{self.prompt.version} · {self.model}" + (
            f" · {options}" if options else ""
        )


@dataclass
class Cell:
    row: int
    variant: int
    passed: bool
    answer: str = ""
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    reasons: list[str] = field(default_factory=list)
    error: str = ""
    cost: float | None = None  # US dollars at the price table; None: the model has no price there


def cost_of(answer: Answer, model: str, prices: Mapping[str, ModelPrice]) -> float | None:
    """An answer's tokens at its model's price, as the Playground costs an answer (app/core/playground/cost.py:
    cached input at its own price); None where the table has no price for the model."""
    figures = Figures(
        input_tokens=answer.input_tokens,
        output_tokens=answer.output_tokens,
        cached_tokens=answer.cached_tokens,
    )
    return answer_cost(figures, model, PriceBook(prices, "")).usd


@dataclass(frozen=True)
class Summary:
    variant: str
    done: int
    passed: int
    median_seconds: float
    input_tokens: int
    output_tokens: int
    cost: float | None = None  # None: no cell of the variant was priced

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def pass_rate(self) -> float:
        return self.passed / self.done if self.done else 0.0


@dataclass
class EvalRun:
    dataset: Dataset
    variants: list[Variant]
    graders: list[Grader]
    stores_prompts: bool = True  # False: the prompt's text is sent, filled here
    concurrency: int = 8
    cells: dict[tuple[int, int], Cell] = field(default_factory=dict)
    failures: list[BaseException] = field(default_factory=list)  # the requests' own errors, for the caller
    # By model: each cell's cost, at the table app/core/price_book.py chooses (the Playground's).
    prices: Mapping[str, ModelPrice] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.dataset.rows) * len(self.variants)

    def body(self, row: Row, variant: Variant) -> dict[str, Any]:
        body = prompt_request(variant.prompt, row.values, self.stores_prompts, variant.model)
        return {**body, **variant.options}

    def sent(self, row_index: int, variant_index: int) -> SentRequest:
        """A cell's request as it was sent, to open it again elsewhere."""
        row, variant = self.dataset.rows[row_index], self.variants[variant_index]
        values = {name: row.values.get(name, "") for name in variant.prompt.variables}
        return SentRequest(
            variant.prompt, values, variant.model, dict(variant.options), self.body(row, variant)
        )

    async def run(
        self, send: Send, judge: Judge | None = None, on_cell: Callable[[Cell], None] | None = None
    ) -> None:
        jobs: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
        for row in range(len(self.dataset.rows)):
            for variant in range(len(self.variants)):
                if (row, variant) not in self.cells:
                    jobs.put_nowait((row, variant))

        async def worker() -> None:
            while not jobs.empty():
                row, variant = jobs.get_nowait()
                cell = await self._one(row, variant, send, judge)
                self.cells[(row, variant)] = cell
                if on_cell is not None:
                    on_cell(cell)

        workers = [
            asyncio.ensure_future(worker()) for _ in range(max(1, min(self.concurrency, jobs.qsize())))
        ]
        try:
            await asyncio.gather(*workers)
        finally:  # Stop: the workers go too, with their requests
            for task in workers:
                task.cancel()

    async def _one(self, row_index: int, variant_index: int, send: Send, judge: Judge | None) -> Cell:
        row, variant = self.dataset.rows[row_index], self.variants[variant_index]
        started = time.perf_counter()
        try:
            answer = await send(self.body(row, variant))
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.failures.append(error)
            return Cell(
                row_index, variant_index, False, seconds=time.perf_counter() - started, error=str(error)
            )
        seconds = time.perf_counter() - started
        cell = Cell(
            row_index,
            variant_index,
            True,
            answer.text,
            seconds,
            answer.input_tokens,
            answer.output_tokens,
            cost=cost_of(answer, variant.model, self.prices),
        )
        for grader in self.graders:
            try:
                verdict = await grader.grade(answer.text, row, judge)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                cell.passed = False
                cell.reasons.append(f"{grader.label}: the grader failed ({error})")
                continue
            cell.passed = cell.passed and verdict.passed
            cell.reasons.append(f"{grader.label}: {'pass' if verdict.passed else 'fail'}, {verdict.reason}")
        return cell

    def summary(self) -> list[Summary]:
        out = []
        for index, variant in enumerate(self.variants):
            cells = [cell for (_, v), cell in self.cells.items() if v == index]
            costs = [cell.cost for cell in cells if cell.cost is not None]
            out.append(
                Summary(
                    variant.label,
                    len(cells),
                    sum(cell.passed for cell in cells),
                    statistics.median(cell.seconds for cell in cells) if cells else 0.0,
                    sum(cell.input_tokens for cell in cells),
                    sum(cell.output_tokens for cell in cells),
                    sum(costs) if costs else None,
                )
            )
        return out

    def pass_rate(self) -> float:
        """Of every cell the run holds (a stopped run: of those answered)."""
        return sum(cell.passed for cell in self.cells.values()) / len(self.cells) if self.cells else 0.0

    # -- saved, reopened, exported ----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rows": [{"values": row.values, "expected": row.expected} for row in self.dataset.rows],
            "variants": [
                {"prompt": v.prompt.model_dump(mode="json"), "model": v.model, "options": v.options}
                for v in self.variants
            ],
            "graders": [grader.label for grader in self.graders],
            "schemas": {grader.label: grader.schema for grader in self.graders if grader.schema is not None},
            "stores_prompts": self.stores_prompts,
            "concurrency": self.concurrency,
            "cells": [asdict(cell) for cell in sorted(self.cells.values(), key=lambda c: (c.row, c.variant))],
            "summary": [{**asdict(s), "pass_rate": s.pass_rate} for s in self.summary()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> EvalRun:
        schemas = data.get("schemas", {})
        graders = [
            parse_grader(label)
            if label not in schemas
            else parse_grader(f"json:{json.dumps(schemas[label])}")
            for label in data["graders"]
        ]
        run = cls(
            Dataset([Row(dict(row["values"]), row.get("expected")) for row in data["rows"]]),
            [
                Variant(StoredPrompt.model_validate(v["prompt"]), v["model"], dict(v["options"]))
                for v in data["variants"]
            ],
            graders,
            bool(data.get("stores_prompts", True)),
            int(data.get("concurrency", 8)),
        )
        for cell in data["cells"]:
            run.cells[(cell["row"], cell["variant"])] = Cell(**cell)
        return run

    def to_csv(self) -> str:
        """One line per cell: the row's values, the variant, pass or fail, the answer and its figures."""
        names = self.dataset.variables
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(
            [
                *names,
                "expected",
                "variant",
                "passed",
                "answer",
                "seconds",
                "input_tokens",
                "output_tokens",
                "cost_usd",
                "reasons",
                "error",
            ]
        )
        for (row_index, variant_index), cell in sorted(self.cells.items()):
            row = self.dataset.rows[row_index]
            writer.writerow(
                [
                    *(row.values.get(name, "") for name in names),
                    row.expected or "",
                    self.variants[variant_index].label,
                    "pass" if cell.passed else "fail",
                    cell.answer,
                    f"{cell.seconds:.3f}",
                    cell.input_tokens,
                    cell.output_tokens,
                    "" if cell.cost is None else f"{cell.cost:.6f}",
                    "; ".join(cell.reasons),
                    cell.error,
                ]
            )
        return out.getvalue()
