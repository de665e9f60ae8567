"""Function calling on the local engine: how the model is told about the functions, how it calls one, and
the llama.cpp grammar that holds a call's arguments to the function's parameters schema.

The call format is `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, the one most tool-capable
chat templates (Hermes, Qwen) use. A GGUF whose chat template has a tools section renders the tools
itself; otherwise (the default base weights) the functions and the format are written into the prompt's
preamble. With `tool_choice` "auto" the model starts freely: if what it writes begins with `<tool_call>`,
generation restarts after that mark under the call grammar; anything else streams as text. With
"required" or a named function the answer is calls from the first token. With `parallel_tool_calls` (the
default) the grammar lets a call be followed by more, up to `max_tool_calls`; with a JSON `text.format` and
"auto" the grammar's alternatives are calls or the JSON answer. The grammars are built by llama-cpp-python's
own JSON-Schema converter (local_grammar.py), so this module needs no llama_cpp.
"""

from __future__ import annotations

import json
from typing import Any

from app.sandbox.request.engine_request import Message
from app.sandbox.request.tools import FunctionSpec, ToolPlan

from .upstream_tools import WireNames

CALL_START = "<tool_call>"
CALL_END = "</tool_call>"


def callable_functions(plan: ToolPlan) -> list[FunctionSpec]:
    """The functions this turn's calls may name (all of them, or the one `tool_choice` forces)."""
    return [spec for spec in plan.functions if plan.forced is None or spec.name == plan.forced]


def call_schema(plan: ToolPlan) -> dict[str, Any]:
    """The JSON Schema of one call of any function the turn may call (`name` fixed, `arguments` its schema)."""
    options = [
        {
            "type": "object",
            "properties": {
                "name": {"const": WireNames.wire(spec.name, spec.namespace)},
                "arguments": spec.parameters,
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for spec in callable_functions(plan)
    ]
    return options[0] if len(options) == 1 else {"oneOf": options}


def call_header(spec: FunctionSpec) -> str:
    """A call's text up to its arguments: what the prompt is given when only one function can be called."""
    return f'{CALL_START}{{"name": {json.dumps(WireNames.wire(spec.name, spec.namespace))}, "arguments":'  # no space: the model writes ' {' as one token


def tools_preamble(plan: ToolPlan) -> str:
    """The functions and the call format, in words, for a prompt whose template has no tools section."""
    lines = [
        "You can call functions. To call one, answer with exactly "
        f'{CALL_START}{{"name": NAME, "arguments": {{...}}}}{CALL_END} and nothing else.',
    ]
    if plan.call_limit != 1:
        lines.append(f"To call several, write one {CALL_START}...{CALL_END} block per call, one per line.")
    lines.append("Functions:")
    for spec in plan.functions:
        name = WireNames.wire(spec.name, spec.namespace)
        described = f": {spec.description}" if spec.description else ""
        lines.append(f"- {name}{described} Parameters (JSON Schema): {json.dumps(spec.parameters)}")
    return "\n".join(lines)


def template_tools(plan: ToolPlan) -> list[dict[str, Any]]:
    """The functions as chat templates take them (the Chat Completions shape)."""
    return [
        {
            "type": "function",
            "function": {
                "name": WireNames.wire(spec.name, spec.namespace),
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
        for spec in plan.functions
    ]


def call_text(message: Message) -> str:
    """An assistant turn's calls as the model writes them, for the history of a prompt."""
    return "".join(
        f'{CALL_START}{{"name": {json.dumps(WireNames.wire(c.name, c.namespace))}, "arguments": {c.arguments}}}{CALL_END}'
        for c in message.calls
    )


def parse_call(text: str, plan: ToolPlan) -> tuple[str, str, str | None] | None:
    """(name, arguments as JSON text, namespace) of the call the grammar produced, or None if unreadable."""
    try:
        call = json.loads(text.strip().removesuffix(CALL_END))
    except ValueError:
        return None
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    name, namespace = WireNames(plan).back(call["name"])
    return name, json.dumps(call.get("arguments", {}), ensure_ascii=False), namespace


def still_deciding(text: str) -> bool:
    """Whether the start of an answer could still become the call mark (hold it back until it is known)."""
    start = text.lstrip()
    return len(start) < len(CALL_START) and CALL_START.startswith(start)


def is_call(text: str) -> bool:
    return text.lstrip().startswith(CALL_START)
