"""What the sandbox does not implement, refused by name before validation, so nothing is silently ignored.

The hosted service's tools, input items and parameters that need something the sandbox does not have
(files, vector stores, MCP servers, a computer, a code runner, moderation) are a 400 that
names the field as the client wrote it and says that it is not supported here. A name that the service does
not know either is left to validation, which refuses it as unknown. The README's table of what is
honoured, echoed or refused is held to these sets by tests/sandbox/test_support_table.py.
"""

from __future__ import annotations

from typing import Any

from app.sandbox.contract.validate import bad
from app.sandbox.errors import quote

REFUSED_TOOLS = frozenset(
    {
        "file_search",
        "mcp",
        "computer",
        "computer_use_preview",
        "code_interpreter",
        "image_generation",
        "local_shell",
        "shell",
        "custom",
        "tool_search",
        "apply_patch",
        "programmatic_tool_calling",
    }
)
SUPPORTED_ITEMS = frozenset(
    {
        "message",
        "reasoning",
        "web_search_call",
        "function_call",
        "function_call_output",
        "item_reference",
        "compaction",
    }
)
REFUSED_PARTS = frozenset({"input_file", "input_audio"})
REFUSED_PARAMETERS = {
    "moderation": "moderation",
    "image": "image generation options",
    "access_programs": "programmatic tool calling",
    "background_options": "background options",
    "prompt_cache_options": "prompt caching options",
}
REFUSED_INCLUDES = frozenset(
    {"file_search_call.results", "computer_call_output.output.image_url", "code_interpreter_call.outputs"}
)


def _not_here(what: str, param: str) -> Exception:
    return bad(
        f"{what} is not supported here: the sandbox does not implement it.", param, "unsupported_value"
    )


def refuse_unsupported(body: dict[str, Any]) -> None:
    """Raise the 400 for the first thing in `body` that the sandbox does not implement."""
    for name, what in REFUSED_PARAMETERS.items():
        if body.get(name) is not None:
            raise _not_here(f"'{name}' ({what})", name)
    choice = body.get("tool_choice")
    kind = choice.get("type") if isinstance(choice, dict) else None
    if isinstance(kind, str) and kind in REFUSED_TOOLS:
        raise _not_here(f"A tool_choice of the {quote(kind)} tool", "tool_choice.type")
    tools = body.get("tools")
    for index, tool in enumerate(tools if isinstance(tools, list) else []):
        kind = tool.get("type") if isinstance(tool, dict) else None
        if isinstance(kind, str) and kind in REFUSED_TOOLS:
            raise _not_here(f"The {quote(kind)} tool", f"tools[{index}].type")
    include = body.get("include")
    for index, value in enumerate(include if isinstance(include, list) else []):
        if isinstance(value, str) and value in REFUSED_INCLUDES:
            raise _not_here(f"include {quote(value)}", f"include[{index}]")
    items = body.get("input")
    for index, item in enumerate(items if isinstance(items, list) else []):
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if isinstance(kind, str) and kind not in SUPPORTED_ITEMS:
            raise _not_here(f"An input item of type {quote(kind)}", f"input[{index}].type")
        _refuse_parts(item.get("content"), f"input[{index}].content")
        _refuse_parts(item.get("output"), f"input[{index}].output", REFUSED_PARTS | {"input_image"})


def _refuse_parts(parts: Any, where: str, refused: frozenset[str] = REFUSED_PARTS) -> None:
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        kind = part.get("type") if isinstance(part, dict) else None
        if isinstance(kind, str) and kind in refused:
            raise _not_here(f"A content part of type {quote(kind)}", f"{where}[{index}].type")


def reasons(model: str) -> bool:
    """The sandbox's reasoning models are the `-think` ones; `reasoning` on another is refused."""
    return model.endswith(("-think", "-think-mini"))


def refuse_reasoning(model: str, reasoning: dict[str, Any] | None) -> None:
    """The service's answer to a reasoning effort on a model that does not reason. A `summary` alone is
    accepted there (the Codex CLI sends one to every model it has no metadata for): with no reasoning, there
    is no summary to give."""
    if reasoning is None or reasons(model) or reasoning.get("effort") is None:
        return
    raise bad(
        "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
        "reasoning.effort",
        "unsupported_parameter",
    )
