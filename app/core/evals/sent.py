"""One eval cell's request as it was sent: the prompt version, the row's values, the model and the variant's
options, with the exact body. The Evals window hands it to whatever opens a row again (the Playground)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.common.prompt_template import fill
from app.core.prompts.draft import PromptDraft, StoredPrompt


@dataclass(frozen=True)
class SentRequest:
    prompt: StoredPrompt  # the whole version: its id, version, texts and options
    variables: dict[str, str]  # the row's values of the prompt's variables
    model: str
    options: dict[str, Any] = field(default_factory=dict)  # the variant's own (temperature=…)
    body: dict[str, Any] = field(default_factory=dict)  # exactly what went to /v1/responses

    @property
    def instructions(self) -> str:
        """The version's instructions with the row's values in place."""
        return fill(PromptDraft.of(self.prompt).instructions, self.variables)

    @property
    def message(self) -> str:
        """The version's message with the row's values in place."""
        return fill(PromptDraft.of(self.prompt).message, self.variables)

    @property
    def request_options(self) -> dict[str, Any]:
        """The options the request ran with: the variant's over the version's own."""
        return {
            name: value
            for name, value in {**self.prompt.options, **self.options}.items()
            if value is not None
        }
