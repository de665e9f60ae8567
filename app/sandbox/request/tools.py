"""Function calling as the engines see it: the functions a turn may call, after tool_choice, and the calls
and outputs of a conversation.

`plan_tools` turns the validated `tools`, `tool_choice`, `parallel_tool_calls` and `max_tool_calls` into a
`ToolPlan`; every inconsistency (a choice naming a function that is not offered, two functions of one
name) is a 400 naming the field as the client wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from app.sandbox.contract.responses import CreateResponse, WebSearchTool
from app.sandbox.contract.tools import ChoiceAllowed, ChoiceFunction, FunctionTool, NamespaceTool
from app.sandbox.contract.validate import bad
from app.sandbox.errors import quote

Mode = Literal["none", "auto", "required"]
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


@dataclass(frozen=True)
class FunctionSpec:
    """One function the model may call; `namespace` names its group (a `namespace` tool), if any."""

    name: str
    description: str
    parameters: dict[str, Any]
    strict: bool
    namespace: str | None = None


@dataclass(frozen=True)
class CallRecord:
    """A function call in the conversation, as the model made it (or the client sent it back)."""

    call_id: str
    name: str
    arguments: str
    namespace: str | None = None


@dataclass(frozen=True)
class ToolPlan:
    """What this turn may call. `mode`: none (answer in text), auto (the model chooses) or required (at
    least one call); `forced` names the one function a `{"type": "function"}` choice requires."""

    functions: tuple[FunctionSpec, ...] = ()
    mode: Mode = "auto"
    forced: str | None = None
    parallel: bool = True
    max_calls: int | None = None
    search_allowed: bool = True
    offered: tuple[FunctionSpec, ...] = field(default=())  # every function in `tools`, chosen or not

    @property
    def active(self) -> bool:
        """Whether the engine may call a function this turn."""
        return bool(self.functions) and self.mode != "none"

    def find(self, name: str) -> FunctionSpec | None:
        return next((spec for spec in self.functions if spec.name == name), None)

    @property
    def call_limit(self) -> int | None:
        """The most calls one answer may make: one without parallel calls, and never past max_tool_calls."""
        limits = [limit for limit in (None if self.parallel else 1, self.max_calls) if limit is not None]
        return min(limits) if limits else None


def _spec(tool: FunctionTool, namespace: str | None) -> FunctionSpec:
    return FunctionSpec(
        tool.name,
        tool.description or "",
        tool.parameters if tool.parameters is not None else EMPTY_PARAMETERS,
        bool(tool.strict),
        namespace,
    )


def _offered(body: CreateResponse) -> list[FunctionSpec]:
    specs: list[FunctionSpec] = []
    seen: set[tuple[str | None, str]] = set()
    for index, tool in enumerate(body.tools):
        group = (
            tool.tools
            if isinstance(tool, NamespaceTool)
            else [tool]
            if isinstance(tool, FunctionTool)
            else []
        )
        namespace = tool.name if isinstance(tool, NamespaceTool) else None
        for inner, function in enumerate(group):
            key = (namespace, function.name)
            if key in seen:
                where = f"tools[{index}].tools[{inner}].name" if namespace else f"tools[{index}].name"
                raise bad(f"Two functions are named '{quote(function.name)}': names must be unique.", where)
            seen.add(key)
            specs.append(_spec(function, namespace))
    return specs


def _allowed(choice: ChoiceAllowed, offered: list[FunctionSpec], searches: bool) -> list[FunctionSpec]:
    names = {spec.name for spec in offered}
    allowed: list[str] = []
    for index, tool in enumerate(choice.tools):
        kind, name = tool.get("type"), tool.get("name")
        if (
            kind in ("function", "namespace")
            and isinstance(name, str)
            and name in names | {spec.namespace for spec in offered if spec.namespace}
        ):
            allowed.append(name)
        elif isinstance(kind, str) and kind.startswith("web_search") and searches:
            continue
        else:
            raise bad(
                f"'tool_choice.tools[{index}]' names no tool in 'tools': {quote(repr(tool))}.",
                f"tool_choice.tools[{index}]",
            )
    return [spec for spec in offered if spec.name in allowed or spec.namespace in allowed]


def plan_tools(body: CreateResponse) -> ToolPlan:
    offered = _offered(body)
    searches = any(isinstance(tool, WebSearchTool) for tool in body.tools)
    choice = body.tool_choice
    parallel = body.parallel_tool_calls is not False
    common: dict[str, Any] = {
        "parallel": parallel,
        "max_calls": body.max_tool_calls,
        "offered": tuple(offered),
    }
    if isinstance(choice, str):
        if choice == "required" and not body.tools:
            raise bad("'tool_choice' is 'required', but 'tools' is empty: add a tool.", "tool_choice")
        return ToolPlan(tuple(offered), choice, None, search_allowed=choice != "none", **common)
    if isinstance(choice, ChoiceFunction):
        spec = next((spec for spec in offered if spec.name == choice.name), None)
        if spec is None:
            raise bad(
                f"'tool_choice.name' is '{quote(choice.name)}', but no function in 'tools' has that name.",
                "tool_choice.name",
            )
        return ToolPlan((spec,), "required", spec.name, search_allowed=False, **common)
    if isinstance(choice, ChoiceAllowed):
        allowed = _allowed(choice, offered, searches)
        searched = any(str(tool.get("type", "")).startswith("web_search") for tool in choice.tools)
        return ToolPlan(tuple(allowed), choice.mode, None, search_allowed=searched, **common)
    if not searches:
        raise bad("'tool_choice' names a tool, but 'tools' has no web search tool: add one.", "tool_choice")
    return ToolPlan((), "none", None, search_allowed=True, **common)
