"""An eval cell opened in the Playground as it was sent: the prompt version in use with the row's values in
its variables form (the turn then says "from prompt NAME vN"), its model chosen, and the variant's sampling
options and output format set, ready for Send. The options panel's instructions are left empty: the
version's own are sent with it (a request's instructions would replace them).

The main window owns it: the Prompts tab and the Playground never import each other."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from app.services.session.ui_state import PlaygroundState

if TYPE_CHECKING:
    from app.core.evals.sent import SentRequest

    from .playground.tab import PlaygroundTab


def playground_state(current: PlaygroundState, sent: SentRequest) -> PlaygroundState:
    """The Playground's options with the request's: what it did not set goes back to the default."""
    options = sent.request_options
    reasoning = options.get("reasoning")
    text_format = (options.get("text") or {}).get("format") or {}
    schema = text_format.get("schema") if text_format.get("type") == "json_schema" else None
    return PlaygroundState.from_saved(
        {
            "model": sent.model,
            "web_search": current.web_search,
            "chain": current.chain,
            "instructions": "",
            "temperature": options.get("temperature"),
            "top_p": options.get("top_p"),
            "max_output_tokens": options.get("max_output_tokens"),
            "reasoning_effort": reasoning.get("effort") if isinstance(reasoning, dict) else None,
            "structured": isinstance(schema, dict),
            "schema": json.dumps(schema, indent=2) if isinstance(schema, dict) else current.schema,
        }
    )


def open_in_playground(playground: PlaygroundTab, sent: SentRequest) -> None:
    current = PlaygroundState.from_saved(playground.saved_options())
    playground.restore_options(playground_state(current, sent).to_saved())
    playground.use_prompt(sent.prompt, sent.variables, sent.model)
    playground.message.clear()  # the prompt's message is sent; typed text would go after it
    playground.message.setFocus()
