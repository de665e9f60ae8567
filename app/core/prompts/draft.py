"""A prompt as the library edits it, and what it becomes: the body of a save, the request that uses it.

A service that stores prompts (the sandbox, the hosted service) is sent the `prompt` parameter and fills the
variables itself; any other is sent the text with the variables filled here, so a prompt works the same
against both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.api.prompts import PromptBody, StoredPrompt
from app.common.prompt_template import fill, variables_in

__all__ = ["PromptDraft", "StoredPrompt", "message_text", "missing", "prompt_request"]  # the UI's names


@dataclass(frozen=True)
class PromptDraft:
    """What a person typed: the message is one user message (its `{{variables}}` filled before Send)."""

    name: str
    instructions: str = ""
    message: str = ""
    model: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, stored: StoredPrompt) -> PromptDraft:
        return cls(
            stored.name,
            stored.instructions or "",
            message_text(stored.input),
            stored.model or "",
            stored.options,
        )

    @property
    def variables(self) -> list[str]:
        return variables_in([self.instructions, self.message])

    def problem(self) -> str:
        """Why it cannot be saved ("" when it can)."""
        if not self.name.strip():
            return "Give the prompt a name."
        if not self.instructions.strip() and not self.message.strip():
            return "Write the instructions, the message or both."
        return ""

    def body(self, note: str) -> PromptBody:
        body: PromptBody = {"name": self.name.strip()}
        if self.instructions.strip():
            body["instructions"] = self.instructions
        if self.message.strip():
            body["input"] = self.message
        if self.model:
            body["model"] = self.model
        if self.options:
            body["options"] = dict(self.options)
        if note.strip():
            body["note"] = note.strip()
        return body


def message_text(given: str | list[dict[str, Any]] | None) -> str:
    """A stored input as one text: a string as it is; messages' texts, one paragraph each."""
    if given is None or isinstance(given, str):
        return given or ""
    texts: list[str] = []
    for message in given:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            texts += [str(part["text"]) for part in content if isinstance(part, dict) and "text" in part]
    return "\n\n".join(texts)


def missing(stored: StoredPrompt | PromptDraft, values: Mapping[str, str]) -> list[str]:
    """The variables that have no value yet, in the prompt's order."""
    return [name for name in stored.variables if not values.get(name)]


def prompt_request(
    stored: StoredPrompt, values: Mapping[str, str], stores_prompts: bool, model: str = ""
) -> dict[str, Any]:
    """The Responses API body that uses this version with these values: the `prompt` parameter where the
    service keeps the prompt, otherwise its text with the values filled in."""
    chosen = model or stored.model or ""
    body: dict[str, Any] = {"model": chosen} if chosen else {}
    if stores_prompts:
        variables = {name: values.get(name, "") for name in stored.variables}
        return {**body, "prompt": {"id": stored.id, "version": stored.version, "variables": variables}}
    draft = PromptDraft.of(stored)
    if draft.instructions:
        body["instructions"] = fill(draft.instructions, values)
    body["input"] = fill(draft.message, values)
    for name, value in stored.options.items():
        if value is not None:
            body.setdefault(name, value)
    return body
