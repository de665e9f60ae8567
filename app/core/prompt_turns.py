"""A Playground turn made from a stored prompt's version and the values of its `{{variables}}`, Qt-free.

It stands between the Playground's turns (core/playground) and the prompt library (core/prompts), which
never import each other. A service that keeps the prompt is sent the `prompt` parameter and fills the
variables itself; any other is sent the prompt's text filled here (core/prompts `prompt_request`), so the
same turn works against both (docs/contract.md, "Stored prompts in the Playground").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from app.common.prompt_template import fill
from app.core.playground.turns import Attachment, RequestOptions, RequestPlan, Turn, build_request
from app.core.prompts.draft import StoredPrompt, message_text, missing, prompt_request

__all__ = ["PromptUse", "StoredPrompt", "prompt_turn"]

# What the prompt's own options may bring to a request the Playground's options leave out.
_OPTION_KEYS = ("temperature", "top_p", "max_output_tokens", "tools", "tool_choice", "text", "reasoning")


@dataclass
class PromptUse:
    """A prompt version the Playground sends from, and the values typed for its variables."""

    stored: StoredPrompt
    values: dict[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.stored.name} v{self.stored.version}"

    @property
    def version_number(self) -> int | None:
        version = self.stored.version
        return int(version) if version.isascii() and version.isdigit() else None

    @property
    def variables(self) -> list[str]:
        return list(self.stored.variables)

    def missing(self) -> list[str]:
        """The variables still empty, in the prompt's order: every one is required (the service refuses a
        request that leaves one out)."""
        return missing(self.stored, self.values)

    def send_problem(self) -> str:
        """Why Send must wait ("" when it need not)."""
        empty = self.missing()
        if not empty:
            return ""
        names = empty[0] if len(empty) == 1 else ", ".join(empty[:-1]) + " and " + empty[-1]
        return f"Fill in {names} to send from {self.label}."

    def message(self) -> str:
        """The prompt's message with the values in: what the person reads as the turn's message."""
        return fill(message_text(self.stored.input), self.values)


def prompt_turn(
    earlier: Sequence[Turn],
    use: PromptUse,
    typed: str,
    attachments: Sequence[Attachment],
    options: RequestOptions,
    server: str = "",
    stores: bool = True,
) -> tuple[RequestPlan, str]:
    """The request of a turn from `use` after `earlier` (what the person typed goes after the prompt's
    message), and the turn's message as shown and kept in the history. What the Playground sets (model,
    instructions, options) wins over the prompt's, as the service applies a request's own."""
    filled = prompt_request(use.stored, use.values, stores, options.model)
    if stores:
        plan = build_request(earlier, typed, attachments, options, server)
        body = cast(dict[str, Any], plan.body)
        body["prompt"] = filled["prompt"]
        if not typed and not attachments:
            _drop_empty_message(body)
        shown = "\n\n".join(filter(None, (use.message(), typed)))
        return plan, shown
    shown = "\n\n".join(filter(None, (str(filled.get("input", "")), typed)))
    instructions = options.instructions.strip() or str(filled.get("instructions", ""))
    plan = build_request(
        earlier, shown, attachments, dataclasses.replace(options, instructions=instructions), server
    )
    body = cast(dict[str, Any], plan.body)
    for key in _OPTION_KEYS:
        if key in filled:
            body.setdefault(key, filled[key])
    return plan, shown


def _drop_empty_message(body: dict[str, Any]) -> None:
    """Nothing typed: the prompt's message is the turn's, so the request adds no empty one of its own."""
    given = body.get("input")
    if given == "":
        body["input"] = []
    elif isinstance(given, list) and given and given[-1] == {"role": "user", "content": ""}:
        body["input"] = given[:-1]
