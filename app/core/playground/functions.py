"""Function tools in the Playground, as plain data: the definitions a person writes, the settings a turn offers
them with, and the rules around them (a name the API accepts, a parameters schema that is a JSON Schema).
The calls a model makes are function_calls'. No Qt: the service, the snippets and the saved conversations
share these.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from app.api.requests import (
    FunctionToolParam,
    NamedFunction,
    ToolChoiceParam,
)
from app.common.jsonschema_check import schema_problem
from app.core.playground.status import DEFAULT_MAX_ROUNDS as DEFAULT_MAX_ROUNDS

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # what the Responses API accepts as a function's name
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


@dataclass(frozen=True)
class FunctionDefinition:
    """A function the model may call, and the output the console may answer it with by itself."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=lambda: dict(EMPTY_PARAMETERS))
    strict: bool = False
    mock_output: str = ""  # a saved answer: a re-run answers each call of this function with it

    def tool(self) -> FunctionToolParam:
        """The tool as the request carries it (the mock output stays in the console)."""
        tool = FunctionToolParam(
            type="function", name=self.name, parameters=dict(self.parameters), strict=self.strict
        )
        if self.description:
            tool["description"] = self.description
        return tool

    def as_saved(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": dict(self.parameters),
            "strict": self.strict,
            "mock_output": self.mock_output,
        }

    @classmethod
    def from_saved(cls, value: Any) -> FunctionDefinition | None:
        """A definition read back from a file; None for anything that is not one (a damaged file loses
        that definition, not the others)."""
        if not isinstance(value, Mapping):
            return None
        name, parameters = value.get("name"), value.get("parameters")
        if not isinstance(name, str) or not NAME_PATTERN.match(name) or not isinstance(parameters, Mapping):
            return None
        description, mock = value.get("description", ""), value.get("mock_output", "")
        return cls(
            name=name,
            description=description if isinstance(description, str) else "",
            parameters=dict(parameters),
            strict=value.get("strict") is True,
            mock_output=mock if isinstance(mock, str) else "",
        )


def definitions_from_saved(values: Any) -> list[FunctionDefinition]:
    if not isinstance(values, list):
        return []
    read = (FunctionDefinition.from_saved(value) for value in values)
    return [definition for definition in read if definition is not None]


@dataclass(frozen=True)
class DefinitionCheck:
    """A definition typed in the editor: the definition when usable, else the first problem in words."""

    definition: FunctionDefinition | None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return self.definition is not None


def check_definition(
    name: str,
    description: str,
    parameters_text: str,
    strict: bool,
    mock_output: str = "",
    taken: Iterable[str] = (),
) -> DefinitionCheck:
    """The rules the service holds a function to, checked as the person types, each said in words."""
    name = name.strip()
    if not name:
        return DefinitionCheck(None, "✗ A function needs a name.")
    if not NAME_PATTERN.match(name):
        return DefinitionCheck(
            None, "✗ The name may hold only letters, digits, _ and -, at most 64 characters."
        )
    if name in set(taken):
        return DefinitionCheck(None, f"✗ Another function is already named {name}.")
    try:
        parameters = json.loads(parameters_text) if parameters_text.strip() else dict(EMPTY_PARAMETERS)
    except ValueError as error:
        return DefinitionCheck(None, f"✗ The parameters are not valid JSON: {error}.")
    if not isinstance(parameters, dict) or parameters.get("type", "object") != "object":
        return DefinitionCheck(None, "✗ The parameters must be a JSON Schema of type object.")
    problem = schema_problem(parameters)
    if problem is not None:
        return DefinitionCheck(None, f"✗ The parameters are not a valid JSON Schema: {problem}.")
    if strict:
        loose = strict_problem(parameters)
        if loose:
            return DefinitionCheck(None, f"✗ With strict on, {loose}")
    definition = FunctionDefinition(name, description.strip(), parameters, strict, mock_output)
    return DefinitionCheck(definition, "✓ Valid function")


def strict_problem(schema: Mapping[str, Any], where: str = "the parameters") -> str:
    """What strict mode asks of a schema and this one lacks: every object closed (`additionalProperties:
    false`) with all its properties required."""
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return f"{where} must set additionalProperties to false."
        properties = schema.get("properties", {})
        if isinstance(properties, Mapping):
            missing = sorted(set(properties) - set(schema.get("required", [])))
            if missing:
                return f"{where} must list every property as required (missing: {', '.join(missing)})."
            for key, value in properties.items():
                if isinstance(value, Mapping):
                    inner = strict_problem(value, f"{where}.{key}")
                    if inner:
                        return inner
    items = schema.get("items")
    if isinstance(items, Mapping):
        return strict_problem(items, f"{where}[]")
    return ""


class ToolChoice(StrEnum):
    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"
    FUNCTION = "function"  # one named function, `ToolSettings.forced`


@dataclass(frozen=True)
class ToolSettings:
    """The functions a turn offers and how the model may use them."""

    functions: tuple[FunctionDefinition, ...] = ()
    choice: ToolChoice = ToolChoice.AUTO
    forced: str = ""  # the function a FUNCTION choice names
    parallel_calls: bool = True
    max_rounds: int = DEFAULT_MAX_ROUNDS
    answer_with_saved: bool = True  # a call whose function has a saved output is answered by itself

    def tool_choice(self) -> ToolChoiceParam | None:
        """The request's tool_choice: None when the default (auto) needs no saying."""
        if self.choice == ToolChoice.FUNCTION and self.forced:
            return NamedFunction(type="function", name=self.forced)
        if self.choice == ToolChoice.NONE:
            return "none"
        if self.choice == ToolChoice.REQUIRED:
            return "required"
        return None

    def definition(self, name: str) -> FunctionDefinition | None:
        return next((item for item in self.functions if item.name == name), None)

    def as_saved(self) -> dict[str, Any]:
        return {
            "functions": [item.as_saved() for item in self.functions],
            "choice": str(self.choice),
            "forced": self.forced,
            "parallel_calls": self.parallel_calls,
            "max_rounds": self.max_rounds,
            "answer_with_saved": self.answer_with_saved,
        }

    @classmethod
    def from_saved(cls, value: Any) -> ToolSettings:
        if not isinstance(value, Mapping):
            return cls()
        try:
            choice = ToolChoice(value.get("choice", "auto"))
        except ValueError:
            choice = ToolChoice.AUTO
        rounds = value.get("max_rounds")
        forced = value.get("forced", "")
        return cls(
            functions=tuple(definitions_from_saved(value.get("functions"))),
            choice=choice,
            forced=forced if isinstance(forced, str) else "",
            parallel_calls=value.get("parallel_calls") is not False,
            max_rounds=rounds if isinstance(rounds, int) and 1 <= rounds <= 50 else DEFAULT_MAX_ROUNDS,
            answer_with_saved=value.get("answer_with_saved") is not False,
        )


def renamed_copy(definition: FunctionDefinition, taken: Iterable[str]) -> FunctionDefinition:
    """A duplicate under the first free name: name_copy, name_copy2, …"""
    names = set(taken)
    base = (definition.name + "_copy")[:64]
    name, number = base, 2
    while name in names:
        name = f"{base[: 64 - len(str(number))]}{number}"
        number += 1
    return replace(definition, name=name)


EXAMPLES: tuple[FunctionDefinition, ...] = (
    FunctionDefinition(
        name="get_weather",
        description="The current weather in a city.",
        parameters={
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "The city, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
        strict=True,
        mock_output='{"temperature": 18, "unit": "celsius", "conditions": "light rain"}',
    ),
    FunctionDefinition(
        name="calculate",
        description="Evaluate an arithmetic expression exactly.",
        parameters={
            "type": "object",
            "properties": {"expression": {"type": "string", "description": "For example (2 + 3) * 4"}},
            "required": ["expression"],
            "additionalProperties": False,
        },
        strict=True,
        mock_output='{"result": 20}',
    ),
    FunctionDefinition(
        name="query_database",
        description="Run a read-only SQL query on the orders database and return the rows.",
        parameters={
            "type": "object",
            "properties": {
                "sql": {"type": "string", "description": "One SELECT statement"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            },
            "required": ["sql", "limit"],
            "additionalProperties": False,
        },
        strict=True,
        mock_output='{"rows": [{"id": 1, "total": 42.5}, {"id": 2, "total": 17.0}]}',
    ),
)
