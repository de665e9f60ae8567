"""Graders: each judges one answer of one row, pass or fail with a reason.

Written `KIND` or `KIND:ARGUMENT`, on the command line as in the window:
- `exact`: the answer, trimmed, is the row's expected value (or the argument);
- `contains[:TEXT]`: the answer holds TEXT (else the expected value), in any case;
- `regex:PATTERN`: the pattern matches somewhere in the answer;
- `json[:SCHEMA]`: the answer is JSON, and valid against the schema when one is given (a JSON Schema);
- `number[:TOLERANCE]`: the first number in the answer is within TOLERANCE (default 0) of the expected one;
- `rubric:TEXT`: a model reads the rubric, the row and the answer and says pass or fail (any model the
  service has; the sandbox's simulated engine plays it offline with a structured output).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from app.common.jsonschema_check import mismatches, schema_problem
from app.core.evals.dataset import Row

KINDS = ("exact", "contains", "regex", "json", "number", "rubric")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"pass": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["pass", "reason"],
    "additionalProperties": False,
}
# What a rubric grader asks of its model: instructions, the text to judge, the verdict's schema -> the verdict.
Judge = Callable[[str, str, dict[str, Any]], Awaitable[dict[str, Any]]]


class GraderError(ValueError):
    """A grader written wrong: the sentence says how to write it."""


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reason: str


@dataclass(frozen=True)
class Grader:
    kind: str
    argument: str = ""
    schema: dict[str, Any] | None = None  # `json` with a schema
    tolerance: float = 0.0  # `number`

    @property
    def label(self) -> str:
        return f"{self.kind}:{self.argument}" if self.argument else self.kind

    def check(self, answer: str, row: Row) -> Verdict:
        """Every grader but `rubric`, which asks a model (`judge`)."""
        expected = self.argument if self.kind in ("exact", "contains") and self.argument else row.expected
        if self.kind == "exact":
            ok = expected is not None and answer.strip() == expected.strip()
            return Verdict(ok, "matches" if ok else f"expected exactly {expected!r}")
        if self.kind == "contains":
            ok = expected is not None and expected.casefold() in answer.casefold()
            return Verdict(ok, f"holds {expected!r}" if ok else f"does not hold {expected!r}")
        if self.kind == "regex":
            ok = re.search(self.argument, answer) is not None
            return Verdict(ok, f"matches /{self.argument}/" if ok else f"no match for /{self.argument}/")
        if self.kind == "json":
            return _json_verdict(answer, self.schema)
        if self.kind == "number":
            return _number_verdict(answer, row.expected, self.tolerance)
        raise GraderError(f"The {self.kind} grader asks a model: use `grade`.")

    async def grade(self, answer: str, row: Row, judge: Judge | None) -> Verdict:
        if self.kind != "rubric":
            return self.check(answer, row)
        if judge is None:
            return Verdict(False, "no model to grade with")
        question = json.dumps({"variables": row.values, "expected": row.expected, "answer": answer})
        instructions = (
            f"Grade the answer against this rubric. Say whether it passes, and why.\nRubric: {self.argument}"
        )
        verdict = await judge(instructions, question, VERDICT_SCHEMA)
        return Verdict(verdict.get("pass") is True, str(verdict.get("reason", "")))


def _json_verdict(answer: str, schema: dict[str, Any] | None) -> Verdict:
    try:
        value = json.loads(answer)
    except json.JSONDecodeError as error:
        return Verdict(False, f"not JSON ({error.msg})")
    if schema is None:
        return Verdict(True, "valid JSON")
    found = mismatches(value, schema)
    if found:
        return Verdict(False, f"{found[0].where}: {found[0].message}")
    return Verdict(True, "valid against the schema")


def _number_verdict(answer: str, expected: str | None, tolerance: float) -> Verdict:
    if expected is None:
        return Verdict(False, "the row has no expected number")
    try:
        target = float(expected)
    except ValueError:
        return Verdict(False, f"the expected value {expected!r} is not a number")
    found = NUMBER.search(answer)
    if found is None:
        return Verdict(False, "no number in the answer")
    value = float(found.group(0))
    ok = abs(value - target) <= tolerance
    return Verdict(
        ok,
        f"{value:g} is within {tolerance:g} of {target:g}"
        if ok
        else f"{value:g} is not within {tolerance:g} of {target:g}",
    )


def parse_grader(spec: str, read_file: Callable[[str], str] | None = None) -> Grader:
    """A grader from `KIND[:ARGUMENT]`; `json:` takes the schema inline or, with `read_file`, a file's path."""
    kind, _, argument = spec.partition(":")
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise GraderError(f"Unknown grader {kind!r}: use one of {', '.join(KINDS)}.")
    if kind in ("regex", "rubric") and not argument:
        raise GraderError(
            f"The {kind} grader needs its {'pattern' if kind == 'regex' else 'rubric'}: {kind}:..."
        )
    if kind == "regex":
        try:
            re.compile(argument)
        except re.error as error:
            raise GraderError(f"regex:{argument} is not a regular expression ({error}).") from None
    if kind == "number":
        try:
            tolerance = float(argument) if argument else 0.0
        except ValueError:
            raise GraderError(f"number:{argument}: the tolerance is a number (number:0.01).") from None
        return Grader(kind, argument, tolerance=abs(tolerance))
    if kind == "json" and argument:
        text = argument if argument.lstrip().startswith("{") or read_file is None else read_file(argument)
        try:
            schema = json.loads(text)
        except json.JSONDecodeError as error:
            raise GraderError(f"json:{argument}: the schema is not JSON ({error.msg}).") from None
        problem = schema_problem(schema) if isinstance(schema, dict) else "a JSON Schema is an object"
        if problem:
            raise GraderError(f"json:{argument}: {problem}")
        return Grader(kind, argument, schema=schema)
    return Grader(kind, argument)
