"""What a run changed against the run before it (pass rate, median time, tokens and cost per variant; the
cells that flipped), each cell's cost at the price table, and a cell's request as it was sent."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.api.prompts import StoredPrompt
from app.api.usage import ModelPrice
from app.core.evals.compare import Flip, compare
from app.core.evals.dataset import Dataset, Row
from app.core.evals.graders import parse_grader
from app.core.evals.run import Answer, Cell, EvalRun, Variant

V1 = StoredPrompt(
    id="pmpt_1",
    version="1",
    name="Capital",
    instructions="You know {{country}} well.",
    input="Capital of {{country}}?",
    options={"temperature": 0.5},
    variables=("country",),
)
V2 = V1.model_copy(update={"version": "2"})
PRICES = {"service-pro": ModelPrice(input=2.0, cached_input=0.5, output=8.0)}


def run_of(prompt: StoredPrompt, passed: list[bool], seconds: float, tokens: int) -> EvalRun:
    rows = [Row({"country": f"C{i}"}, "yes") for i in range(len(passed))]
    run = EvalRun(Dataset(rows), [Variant(prompt, "service-pro")], [parse_grader("contains")])
    for index, ok in enumerate(passed):
        run.cells[(index, 0)] = Cell(index, 0, ok, "yes" if ok else "no", seconds, tokens, tokens, cost=0.001)
    return run


def test_each_cell_is_priced_at_its_models_price_and_the_summary_adds_them() -> None:
    rows = [Row({"country": "France"}, "Paris")]
    run = EvalRun(
        Dataset(rows),
        [Variant(V1, "service-pro"), Variant(V1, "service-mini")],
        [parse_grader("contains")],
        prices=PRICES,
    )

    async def send(body: dict[str, Any]) -> Answer:
        return Answer("Paris", input_tokens=1000, output_tokens=500)

    asyncio.run(run.run(send))
    assert run.cells[(0, 0)].cost == (1000 * 2.0 + 500 * 8.0) / 1_000_000
    assert run.cells[(0, 1)].cost is None  # a model the table does not price has no cost, not a zero
    pro, mini = run.summary()
    assert pro.cost == 0.006 and mini.cost is None
    reopened = EvalRun.from_json(json.loads(json.dumps(run.to_json())))
    assert reopened.cells[(0, 0)].cost == 0.006


def test_a_run_against_the_one_before_says_what_changed_per_variant_and_per_cell() -> None:
    before = run_of(V1, [True, True, False, False], seconds=0.2, tokens=10)
    after = run_of(V2, [True, False, True, True], seconds=0.1, tokens=12)
    changes = compare(after, before)
    (delta,) = changes.deltas
    assert delta is not None
    assert round(delta.pass_rate, 2) == 0.25 and round(delta.median_seconds, 3) == -0.1
    assert delta.tokens == 16 and delta.cost == 0.0
    assert changes.flips == {(1, 0): Flip.TO_FAIL, (2, 0): Flip.TO_PASS, (3, 0): Flip.TO_PASS}
    assert delta.to_pass == 2 and delta.to_fail == 1
    text = delta.text()
    assert "pass rate +25 pts" in text and "median −100 ms" in text and "tokens +16" in text
    assert "2 fail→pass, 1 pass→fail" in text


def test_rows_are_matched_by_their_values_and_variants_by_label_or_place() -> None:
    before = run_of(V1, [True, False], seconds=0.2, tokens=10)
    after = run_of(V1, [True, False, True], seconds=0.2, tokens=10)
    # The new dataset starts with a row the old one did not have: C0, C1 are rows 1 and 2 now.
    after.dataset.rows.insert(0, Row({"country": "new"}, "yes"))
    after.dataset.rows.pop()
    changes = compare(after, before)
    assert changes.flips == {(1, 0): Flip.TO_FAIL, (2, 0): Flip.TO_PASS}
    two_models = EvalRun(
        before.dataset, [Variant(V1, "service-pro"), Variant(V1, "service-mini")], before.graders
    )
    assert compare(two_models, before).deltas[1] is None  # nothing to compare the second one with


def test_a_cell_is_sent_as_the_prompt_version_with_its_row_and_can_be_replayed() -> None:
    run = EvalRun(
        Dataset([Row({"country": "Peru"}, "Lima")]),
        [Variant(V1, "service-pro", {"temperature": 0.1})],
        [parse_grader("contains")],
    )
    sent = run.sent(0, 0)
    assert (sent.prompt.id, sent.prompt.version, sent.variables) == ("pmpt_1", "1", {"country": "Peru"})
    assert sent.model == "service-pro" and sent.options == {"temperature": 0.1}
    assert sent.body == run.body(run.dataset.rows[0], run.variants[0])
    assert sent.body["prompt"] == {"id": "pmpt_1", "version": "1", "variables": {"country": "Peru"}}
    assert (sent.instructions, sent.message) == ("You know Peru well.", "Capital of Peru?")
    # The options the Playground would send: the variant's over the prompt's own.
    assert sent.request_options == {"temperature": 0.1}


def test_a_cells_cached_input_is_priced_as_the_playground_prices_it() -> None:
    from app.api.wire import Response
    from app.core.playground.cost import PriceBook, answer_cost
    from app.core.playground.figures import Figures

    response = Response.model_validate(
        {
            "id": "resp_1",
            "status": "completed",
            "model": "service-pro",
            "output": [
                {
                    "type": "message",
                    "id": "msg_1",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Paris", "annotations": []}],
                }
            ],
            "usage": {
                "input_tokens": 2000,
                "output_tokens": 100,
                "total_tokens": 2100,
                "input_tokens_details": {"cached_tokens": 1500},
            },
        }
    )
    answer = Answer.of(response)
    assert (answer.text, answer.input_tokens, answer.cached_tokens, answer.output_tokens) == (
        "Paris",
        2000,
        1500,
        100,
    )
    run = EvalRun(
        Dataset([Row({"country": "France"}, "Paris")]), [Variant(V1, "service-pro")], [], prices=PRICES
    )

    async def send(body: dict[str, Any]) -> Answer:
        return answer

    asyncio.run(run.run(send))
    figures = Figures(input_tokens=2000, output_tokens=100, cached_tokens=1500)
    played = answer_cost(figures, "service-pro", PriceBook(PRICES, "")).usd
    assert run.cells[(0, 0)].cost == played == (500 * 2.0 + 1500 * 0.5 + 100 * 8.0) / 1_000_000
