"""Function calling across the upstream engine: the turn's functions, tool_choice and the conversation's calls
and outputs, in the two wire formats an upstream may speak (Chat Completions and Responses).

Neither format has namespaces on every server, so a function of a `namespace` tool goes upstream as
"namespace__name" and comes back as that function, with its namespace, in the sandbox's own items.
"""

from __future__ import annotations

from typing import Any

from app.sandbox.request.engine_request import Message
from app.sandbox.request.tools import CallRecord, FunctionSpec, ToolPlan

SEPARATOR = "__"


class WireNames:
    """The names functions go upstream under, and the way back."""

    def __init__(self, plan: ToolPlan) -> None:
        self._back: dict[str, tuple[str, str | None]] = {}
        for spec in plan.offered:
            self._back[self.wire(spec.name, spec.namespace)] = (spec.name, spec.namespace)

    @staticmethod
    def wire(name: str, namespace: str | None) -> str:
        return f"{namespace}{SEPARATOR}{name}" if namespace else name

    def back(self, wire_name: str) -> tuple[str, str | None]:
        return self._back.get(wire_name, (wire_name, None))


def _chat_function(spec: FunctionSpec) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": WireNames.wire(spec.name, spec.namespace),
        "parameters": spec.parameters,
    }
    if spec.description:
        function["description"] = spec.description
    if spec.strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def chat_tool_options(plan: ToolPlan) -> dict[str, Any]:
    """`tools`, `tool_choice` and `parallel_tool_calls` of a chat completion; nothing when no function."""
    if not plan.functions:
        return {}
    options: dict[str, Any] = {"tools": [_chat_function(spec) for spec in plan.functions]}
    if plan.forced is not None:
        forced = plan.find(plan.forced)
        name = WireNames.wire(plan.forced, forced.namespace if forced else None)
        options["tool_choice"] = {"type": "function", "function": {"name": name}}
    else:
        options["tool_choice"] = plan.mode
    if plan.mode != "none":
        options["parallel_tool_calls"] = plan.parallel
    return options


def chat_calls(calls: list[CallRecord]) -> list[dict[str, Any]]:
    return [
        {
            "id": call.call_id,
            "type": "function",
            "function": {"name": WireNames.wire(call.name, call.namespace), "arguments": call.arguments},
        }
        for call in calls
    ]


def responses_tool_options(plan: ToolPlan) -> dict[str, Any]:
    """`tools`, `tool_choice` and `parallel_tool_calls` of a Responses request; nothing when no function."""
    if not plan.functions:
        return {}
    tools = []
    for spec in plan.functions:
        tool: dict[str, Any] = {
            "type": "function",
            "name": WireNames.wire(spec.name, spec.namespace),
            "parameters": spec.parameters,
            "strict": spec.strict,
        }
        if spec.description:
            tool["description"] = spec.description
        tools.append(tool)
    choice: Any = plan.mode
    if plan.forced is not None:
        forced = plan.find(plan.forced)
        choice = {
            "type": "function",
            "name": WireNames.wire(plan.forced, forced.namespace if forced else None),
        }
    return {"tools": tools, "tool_choice": choice, "parallel_tool_calls": plan.parallel}


def responses_items(message: Message, content: Any) -> list[dict[str, Any]]:
    """One message of the conversation as Responses input items (calls and outputs as their own items)."""
    if message.role == "tool":
        return [{"type": "function_call_output", "call_id": message.call_id, "output": message.text()}]
    items: list[dict[str, Any]] = []
    if message.text() or not message.calls:
        items.append({"role": message.role, "content": content})
    items += [
        {
            "type": "function_call",
            "call_id": call.call_id,
            "name": WireNames.wire(call.name, call.namespace),
            "arguments": call.arguments,
        }
        for call in message.calls
    ]
    return items
