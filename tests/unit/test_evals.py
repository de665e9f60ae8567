"""Evals without a service: the dataset's formats, every grader on a passing and a failing row, a run's
concurrency, Stop, its summary, and a run saved, reopened and exported."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from app.api.prompts import StoredPrompt
from app.core.evals.dataset import DatasetError, Row, load, parse_csv, parse_jsonl
from app.core.evals.graders import GraderError, parse_grader
from app.core.evals.run import Answer, Cell, EvalRun, Variant

PROMPT = StoredPrompt(
    id="pmpt_1", version="1", name="Capital", input="Capital of {{country}}?", variables=("country",)
)
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_csv_and_jsonl_give_a_column_per_variable_and_the_expected_value(tmp_path: Path) -> None:
    csv_file = tmp_path / "rows.csv"
    csv_file.write_text("country,expected\nFrance,Paris\nPeru,\n")
    assert load(csv_file).rows == [Row({"country": "France"}, "Paris"), Row({"country": "Peru"}, None)]
    jsonl = parse_jsonl('{"country": "Japan", "expected": "Tokyo", "n": 3}\n\n{"country": "Chile"}\n')
    assert jsonl.rows[0] == Row({"country": "Japan", "n": "3"}, "Tokyo") and jsonl.variables == [
        "country",
        "n",
    ]
    with pytest.raises(DatasetError, match="line 2"):
        parse_jsonl('{"a": 1}\n[1]\n')
    with pytest.raises(DatasetError, match="more values"):
        parse_csv("a\n1,2\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(DatasetError, match="no rows"):
        load(empty)


@pytest.mark.parametrize(
    ("spec", "answer", "expected", "passes"),
    [
        ("exact", " Paris ", "Paris", True),
        ("exact", "Paris, France", "Paris", False),
        ("contains", "It is PARIS.", "Paris", True),
        ("contains", "It is Lyon.", "Paris", False),
        ("contains:lyon", "It is Lyon.", None, True),
        (r"regex:^\d{4}-\d{2}$", "2024-05", None, True),
        (r"regex:^\d{4}-\d{2}$", "May 2024", None, False),
        ("json", '{"city": 1}', None, True),
        ("json", "city: Paris", None, False),
        ("json:" + json.dumps(SCHEMA), '{"city": "Paris"}', None, True),
        ("json:" + json.dumps(SCHEMA), '{"town": "Paris"}', None, False),
        ("number:0.05", "About 3.14159.", "3.1", True),
        ("number:0.01", "About 3.14159.", "3.1", False),
        ("number", "42 apples", "42", True),
        ("number", "no number here", "42", False),
    ],
)
def test_each_grader_passes_and_fails(spec: str, answer: str, expected: str | None, passes: bool) -> None:
    verdict = parse_grader(spec).check(answer, Row({}, expected))
    assert verdict.passed is passes, verdict.reason


def test_a_rubric_asks_its_judge_and_reads_the_verdict() -> None:
    asked: list[str] = []

    async def judge(instructions: str, question: str, schema: dict[str, Any]) -> dict[str, Any]:
        asked.append(instructions)
        return {"pass": "Paris" in question, "reason": "named the capital"}

    grader = parse_grader("rubric:Names the capital")
    assert asyncio.run(grader.grade("Paris", Row({"country": "France"}), judge)).passed
    assert not asyncio.run(grader.grade("Lyon", Row({"country": "France"}), judge)).passed
    assert "Rubric: Names the capital" in asked[0]
    assert not asyncio.run(grader.grade("Paris", Row({}), None)).passed  # no model to ask


@pytest.mark.parametrize("spec", ["maybe", "regex:", "regex:(", "number:close", "json:{nope", "rubric"])
def test_a_grader_written_wrong_says_how(spec: str) -> None:
    with pytest.raises(GraderError):
        parse_grader(spec)


def capitals(rows: int) -> EvalRun:
    from app.core.evals.dataset import Dataset

    dataset = Dataset([Row({"country": f"C{i}"}, f"capital of C{i}") for i in range(rows)])
    variants = [Variant(PROMPT, "service-pro"), Variant(PROMPT, "service-mini", {"temperature": 0.2})]
    return EvalRun(dataset, variants, [parse_grader("contains")], concurrency=3)


def test_a_run_keeps_to_its_concurrency_and_grades_each_cell() -> None:
    run = capitals(10)
    running, most = 0, 0
    seen: list[Cell] = []

    async def send(body: dict[str, Any]) -> Answer:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.001)
        running -= 1
        country = body["prompt"]["variables"]["country"]
        if body["model"] == "service-mini" and country == "C3":
            raise RuntimeError("refused")
        return Answer(f"The capital of {country}." if body["model"] == "service-pro" else "Unsure.", 5, 3)

    asyncio.run(run.run(send, on_cell=seen.append))
    assert most == 3 and len(seen) == 20 == len(run.cells)
    pro, mini = run.summary()
    assert (pro.passed, pro.done, pro.input_tokens) == (10, 10, 50)
    assert (mini.passed, mini.done) == (0, 10) and "temperature=0.2" in mini.variant
    assert run.cells[(3, 1)].error == "refused" and run.pass_rate() == 0.5


def test_stop_keeps_the_cells_answered_and_a_saved_run_reopens(tmp_path: Path) -> None:
    run = capitals(20)

    async def send(body: dict[str, Any]) -> Answer:
        await asyncio.sleep(0.01)
        return Answer("capital of " + body["prompt"]["variables"]["country"])

    async def stopped() -> None:
        task = asyncio.ensure_future(run.run(send))
        while len(run.cells) < 5:
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(stopped())
    answered = len(run.cells)
    assert 5 <= answered < 40
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(run.to_json()))
    reopened = EvalRun.from_json(json.loads(saved.read_text()))
    assert reopened.cells == run.cells and [v.label for v in reopened.variants] == [
        v.label for v in run.variants
    ]
    assert reopened.summary() == run.summary()
    rows = list(csv.DictReader(io.StringIO(reopened.to_csv())))
    assert len(rows) == answered and rows[0]["passed"] == "pass" and rows[0]["country"] == "C0"
