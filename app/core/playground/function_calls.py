"""The function calls a model makes in a Playground turn, as plain data: the outputs sent back for them, their
arguments checked against the function's parameters schema, and the saved outputs that answer them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.api.requests import FunctionCallInput, FunctionCallOutput
from app.common.jsonschema_check import mismatches
from app.core.playground.functions import FunctionDefinition, ToolSettings


@dataclass
class FunctionCall:
    """One call the model made, and the output sent back for it (None while unanswered)."""

    call_id: str
    name: str
    arguments: str  # the JSON text the model wrote
    item_id: str = ""
    output: str | None = None
    answered_by_saved: bool = False  # the output came from the function's saved mock output
    round: int = 1

    @property
    def answered(self) -> bool:
        return self.output is not None

    def pretty_arguments(self) -> str:
        try:
            return json.dumps(json.loads(self.arguments), indent=2, ensure_ascii=False)
        except ValueError:
            return self.arguments

    def call_item(self) -> FunctionCallInput:
        """The call as an input item, for a request that sends the whole history."""
        return FunctionCallInput(
            type="function_call", call_id=self.call_id, name=self.name, arguments=self.arguments
        )

    def output_item(self) -> FunctionCallOutput:
        return FunctionCallOutput(type="function_call_output", call_id=self.call_id, output=self.output or "")

    def as_saved(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "item_id": self.item_id,
            "output": self.output,
            "answered_by_saved": self.answered_by_saved,
            "round": self.round,
        }

    @classmethod
    def from_saved(cls, value: Any) -> FunctionCall | None:
        if not isinstance(value, Mapping):
            return None
        call_id, name, arguments = value.get("call_id"), value.get("name"), value.get("arguments")
        if not all(isinstance(part, str) for part in (call_id, name, arguments)):
            return None
        output, item_id, round_ = value.get("output"), value.get("item_id", ""), value.get("round", 1)
        return cls(
            call_id=str(call_id),
            name=str(name),
            arguments=str(arguments),
            item_id=item_id if isinstance(item_id, str) else "",
            output=output if isinstance(output, str) else None,
            answered_by_saved=value.get("answered_by_saved") is True,
            round=round_ if isinstance(round_, int) and round_ >= 1 else 1,
        )


def calls_from_saved(values: Any) -> list[FunctionCall]:
    if not isinstance(values, list):
        return []
    read = (FunctionCall.from_saved(value) for value in values)
    return [call for call in read if call is not None]


@dataclass(frozen=True)
class ArgumentsVerdict:
    """Whether a call's arguments hold to its function's schema, and the sentence that says so."""

    ok: bool
    text: str


def check_arguments(call: FunctionCall, definition: FunctionDefinition | None) -> ArgumentsVerdict:
    """The arguments a model wrote, held to the function's parameters schema, in words."""
    if definition is None:
        return ArgumentsVerdict(False, f"✗ The model called {call.name}, which this turn does not offer.")
    try:
        arguments = json.loads(call.arguments)
    except ValueError as error:
        return ArgumentsVerdict(False, f"✗ The arguments are not valid JSON: {error}.")
    problems = mismatches(arguments, dict(definition.parameters))
    if problems:
        said = "; ".join(f"{problem.where}: {problem.message}" for problem in problems[:3])
        return ArgumentsVerdict(False, f"✗ The arguments do not match the schema: {said}.")
    return ArgumentsVerdict(True, "✓ The arguments match the schema")


def with_saved_outputs(calls: Sequence[FunctionCall], settings: ToolSettings) -> bool:
    """Answer each unanswered call whose function has a saved output; True when every call is answered."""
    for call in calls:
        if call.answered:
            continue
        definition = settings.definition(call.name)
        if settings.answer_with_saved and definition is not None and definition.mock_output:
            call.output, call.answered_by_saved = definition.mock_output, True
    return all(call.answered for call in calls)
