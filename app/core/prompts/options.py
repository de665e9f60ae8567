"""A prompt version's options as the editor shows them: temperature, the answer's length, the reasoning
effort, the function tools offered and the output format (text, or JSON against a schema), to and from the
`options` a version stores and a response takes (docs/contract.md, "Stored prompts").

Options the editor does not edit (top_p, tool_choice, a format it does not know) are kept as they were, so
a save from the editor never drops what another client saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

EDITED = ("temperature", "max_output_tokens", "reasoning", "tools", "text")


@dataclass(frozen=True)
class VersionOptions:
    temperature: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str | None = None  # set by the editor only where the model reasons
    tools: tuple[Mapping[str, Any], ...] = ()  # function tools, as a request carries them
    schema: Mapping[str, Any] | None = None  # None: the answer is text
    schema_name: str = "answer"
    kept: Mapping[str, Any] = field(default_factory=dict)  # the options the editor leaves alone

    @classmethod
    def read(cls, options: Mapping[str, Any]) -> VersionOptions:
        kept = {name: value for name, value in options.items() if name not in EDITED}
        temperature, tokens = options.get("temperature"), options.get("max_output_tokens")
        reasoning = options.get("reasoning")
        effort = reasoning.get("effort") if isinstance(reasoning, Mapping) else None
        if isinstance(reasoning, Mapping) and set(reasoning) - {"effort"}:
            kept["reasoning"] = reasoning  # a summary setting, say: not the editor's to split
            effort = None
        tools = options.get("tools") or []
        functions = tuple(
            tool for tool in tools if isinstance(tool, Mapping) and tool.get("type") == "function"
        )
        if len(functions) != len(tools):
            kept["tools"], functions = tools, ()  # a web search among them: kept whole
        text = options.get("text")
        text_format = text.get("format") if isinstance(text, Mapping) else None
        schema, name = None, "answer"
        if isinstance(text_format, Mapping) and text_format.get("type") == "json_schema":
            schema, name = text_format.get("schema"), str(text_format.get("name") or "answer")
        elif text is not None and not (
            isinstance(text_format, Mapping) and text_format.get("type") == "text"
        ):
            kept["text"] = text
        return cls(
            float(temperature) if isinstance(temperature, int | float) else None,
            tokens if isinstance(tokens, int) else None,
            effort if isinstance(effort, str) else None,
            functions,
            schema if isinstance(schema, Mapping) else None,
            name,
            kept,
        )

    def options(self) -> dict[str, Any]:
        """What the version stores: only what is set (an option left out is the service's default)."""
        out: dict[str, Any] = dict(self.kept)
        if self.temperature is not None:
            out["temperature"] = self.temperature
        if self.max_output_tokens is not None:
            out["max_output_tokens"] = self.max_output_tokens
        if self.reasoning_effort:
            out["reasoning"] = {"effort": self.reasoning_effort}
        if self.tools:
            out["tools"] = [dict(tool) for tool in self.tools]
        if self.schema is not None:
            text_format = {"type": "json_schema", "name": self.schema_name, "schema": dict(self.schema)}
            out["text"] = {"format": {**text_format, "strict": False}}
        return out

    def summary(self) -> str:
        """One line of what is set, for the folded form ("" when nothing is)."""
        parts = []
        if self.temperature is not None:
            parts.append(f"temperature {self.temperature:g}")
        if self.max_output_tokens is not None:
            parts.append(f"at most {self.max_output_tokens} tokens")
        if self.reasoning_effort:
            parts.append(f"{self.reasoning_effort} effort")
        if self.tools:
            parts.append(f"{len(self.tools)} tool" + ("s" if len(self.tools) > 1 else ""))
        if self.schema is not None:
            parts.append("JSON schema")
        return " · ".join(parts)


def as_edited(options: Mapping[str, Any]) -> dict[str, Any]:
    """Stored options as the editor would save them again (a `text` format spelled out as the default
    reads as none): what a save from the editor is compared with."""
    return VersionOptions.read(options).options()
