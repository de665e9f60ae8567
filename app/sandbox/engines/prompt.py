"""The text a local model continues: the conversation in the GGUF's own chat template, or a plain transcript.

A GGUF with a chat template (instruction-tuned weights) gets its conversation rendered by that template.
Base weights such as the default Gemma 3 270M carry none; wrapped in a chat format they repeat themselves,
while as a plain completion they write sensible text. So a lone prompt is continued as it stands, and a
conversation (instructions, earlier turns) becomes a "User:/Assistant:" transcript ending in "Assistant:",
which a base model continues as the next line of dialogue; "User:" on a new line stops it.
"""

from __future__ import annotations

from typing import Any

from .base import Conversation, SearchResult

_ROLE_NAMES = {"user": "User", "assistant": "Assistant"}
TRANSCRIPT_STOP = ["\nUser:"]


def build_prompt(
    conversation: Conversation, results: list[SearchResult], template: str | None, llama: Any = None
) -> tuple[str, list[str]]:
    """The prompt and its stop strings."""
    context = _search_context(results)
    if template and llama is not None:
        return _templated(conversation, context, template, llama)
    request = conversation.request
    messages = [m for m in conversation.messages if m.role in _ROLE_NAMES and m.text().strip()]
    system = [m.text() for m in conversation.messages if m.role in ("system", "developer")]
    preamble = "\n\n".join(part for part in (request.instructions, *system, context) if part)
    if not preamble and len(messages) == 1 and messages[0].role == "user":
        return messages[0].text(), []
    lines = [f"{_ROLE_NAMES[m.role]}: {m.text().strip()}" for m in messages]
    prompt = (preamble + "\n\n" if preamble else "") + "\n".join(lines) + "\nAssistant:"
    return prompt, TRANSCRIPT_STOP


def _search_context(results: list[SearchResult]) -> str:
    if not results:
        return ""
    found = "\n".join(f"[{n}] {r.title} ({r.url}): {r.snippet}" for n, r in enumerate(results, 1))
    return "Web search results:\n" + found


def _templated(conversation: Conversation, context: str, template: str, llama: Any) -> tuple[str, list[str]]:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    request = conversation.request
    system = "\n\n".join(part for part in (request.instructions, context) if part)
    messages: list[Any] = [{"role": "system", "content": system}] if system else []
    for message in conversation.messages:
        role = "system" if message.role == "developer" else message.role
        messages.append({"role": role, "content": message.text()})

    def token_text(token: int) -> str:
        return str(llama.detokenize([token], special=True).decode("utf-8", errors="ignore"))

    formatter = Jinja2ChatFormatter(
        template, eos_token=token_text(llama.token_eos()), bos_token=token_text(llama.token_bos())
    )
    formatted = formatter(messages=messages)
    stop = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop] if formatted.stop else []
    return formatted.prompt, stop
