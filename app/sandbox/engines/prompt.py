"""The text a local model continues: the conversation in the GGUF's own chat template, or a plain transcript.

A GGUF with a chat template (instruction-tuned weights) gets its conversation rendered by that template.
Base weights such as the default Gemma 3 270M carry none; wrapped in a chat format they repeat themselves,
while as a plain completion they write sensible text. So a lone prompt is continued as it stands, and a
conversation (instructions, earlier turns) becomes a "User:/Assistant:" transcript ending in "Assistant:",
which a base model continues as the next line of dialogue; "User:" on a new line stops it.
Functions the turn may call are described as local_tools.py says (the template's tools section, or the
preamble); earlier calls are written in the call format, and their outputs as "Tool:" lines.
"""

from __future__ import annotations

from typing import Any

from app.sandbox.request.engine_request import Message

from .base import Conversation, SearchResult
from .local_tools import call_text, template_tools, tools_preamble

_ROLE_NAMES = {"user": "User", "assistant": "Assistant", "tool": "Tool"}
TRANSCRIPT_STOP = ["\nUser:", "\nAssistant:"]  # a new speaker line ends the assistant's turn


def build_prompt(
    conversation: Conversation, results: list[SearchResult], template: str | None, llama: Any = None
) -> tuple[str, list[str]]:
    """The prompt and its stop strings."""
    context = _search_context(results)
    if template and llama is not None:
        return _templated(conversation, context, template, llama)
    request = conversation.request
    messages = [m for m in conversation.messages if m.role in _ROLE_NAMES and _said(m)]
    system = [m.text() for m in conversation.messages if m.role in ("system", "developer")]
    tools = tools_preamble(request.tools) if request.tools.active else ""
    preamble = "\n\n".join(part for part in (request.instructions, *system, context, tools) if part)
    if not preamble and len(messages) == 1 and messages[0].role == "user":
        return messages[0].text(), []
    lines = [f"{_ROLE_NAMES[m.role]}: {_said(m)}" for m in messages]
    prompt = (preamble + "\n\n" if preamble else "") + "\n".join(lines) + "\nAssistant:"
    return prompt, TRANSCRIPT_STOP


def _said(message: Message) -> str:
    """A turn's text, with its function calls in the call format after it."""
    return (message.text().strip() + call_text(message)).strip()


def _search_context(results: list[SearchResult]) -> str:
    if not results:
        return ""
    found = "\n".join(f"[{n}] {r.title} ({r.url}): {r.snippet}" for n, r in enumerate(results, 1))
    return "Web search results:\n" + found


def _templated(conversation: Conversation, context: str, template: str, llama: Any) -> tuple[str, list[str]]:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    request = conversation.request
    plan = request.tools
    own_tools = plan.active and "tools" in template  # the template renders the functions itself
    preamble = tools_preamble(plan) if plan.active and not own_tools else ""
    system = "\n\n".join(part for part in (request.instructions, context, preamble) if part)
    messages: list[Any] = [{"role": "system", "content": system}] if system else []
    for message in conversation.messages:
        role = "system" if message.role == "developer" else message.role
        if role == "tool" and "tool" not in template:
            messages.append({"role": "user", "content": f"Function result: {message.text()}"})
        else:
            messages.append({"role": role, "content": _said(message)})

    def token_text(token: int) -> str:
        return str(llama.detokenize([token], special=True).decode("utf-8", errors="ignore"))

    formatter = Jinja2ChatFormatter(
        template, eos_token=token_text(llama.token_eos()), bos_token=token_text(llama.token_bos())
    )
    formatted = formatter(messages=messages, tools=template_tools(plan) if own_tools else None)
    stop = formatted.stop if isinstance(formatted.stop, list) else [formatted.stop] if formatted.stop else []
    return formatted.prompt, stop
