"""The simulated model's function calling: deterministic rules, documented in the README.

- It calls a function when the prompt (the last user message) names it, as written or with its "_" and
  "-" read as spaces ("get weather" names `get_weather`); when it names none, it calls those the prompt is
  about: a word of the function's name that is no common verb ("weather" in `get_weather`), or two words
  of its description, appear in the prompt (words of 3 letters or more, a plural's "s" and common words
  aside). One call per function, in the order the prompt reaches them; without parallel_tool_calls only
  the first.
- tool_choice "required" with no function named calls the first function offered; a choice naming a
  function calls that one; "none" never calls.
- The arguments are an instance of the function's parameters schema (schema_instance.py), filled from
  the prompt, so they always validate.
- Given the outputs of its calls (function_call_output items after the last user message) and a choice
  of "auto", it answers in text that quotes them: an agent's loop ends there.
"""

from __future__ import annotations

import json
import re

from app.sandbox.request.engine_request import Message
from app.sandbox.request.tools import FunctionSpec

from .base import Conversation
from .schema_instance import instance_for


def _position(spec: FunctionSpec, prompt: str) -> int | None:
    """Where the prompt names the function (its own name or its words), or None."""
    names = {spec.name, re.sub(r"[_\-]+", " ", spec.name)}
    hits = [
        match.start()
        for name in names
        if name.strip()
        for match in [re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", prompt, re.IGNORECASE)]
        if match
    ]
    return min(hits) if hits else None


# Words that say what a function does to something, not what it is about ("get" in `get_weather`).
_VERBS = frozenset(
    [
        "get",
        "set",
        "list",
        "fetch",
        "find",
        "create",
        "make",
        "run",
        "call",
        "read",
        "write",
        "update",
        "delete",
        "add",
        "remove",
        "check",
        "show",
        "send",
        "tool",
        "function",
        "lookup",
        "look",
        "query",
        "retrieve",
        "return",
        "compute",
        "calculate",
    ]
)
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "that",
        "this",
        "what",
        "when",
        "where",
        "which",
        "who",
        "how",
        "are",
        "was",
        "were",
        "has",
        "have",
        "its",
        "you",
        "your",
        "can",
        "does",
        "not",
        "but",
        "all",
        "any",
        "about",
        "into",
        "out",
        "like",
        "given",
        "some",
        "more",
        "most",
        "than",
        "then",
        "them",
        "they",
        "their",
        "there",
        "also",
        "only",
        "just",
        "very",
    ]
)


def _words(text: str) -> dict[str, int]:
    """Each content word of `text` (lowercase, a plural's "s" dropped) with where it first appears."""
    found: dict[str, int] = {}
    for match in re.finditer(r"[a-z]{3,}", re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower()):
        word = match.group()
        word = word[:-1] if len(word) > 4 and word.endswith("s") and not word.endswith("ss") else word
        if word not in _COMMON:
            found.setdefault(word, match.start())
    return found


def _topic_position(spec: FunctionSpec, prompt: str) -> int | None:
    """Where the prompt is about what the function is for (a word of its name, or two of its description)."""
    said = _words(prompt)
    name_hits = [said[word] for word in _words(spec.name) if word in said and word not in _VERBS]
    described = [said[word] for word in _words(spec.description) if word in said and word not in _VERBS]
    hits = name_hits + (described if len(described) >= 2 else [])
    return min(hits) if hits else None


def since_last_user(conversation: Conversation) -> list[Message]:
    messages = conversation.messages
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
    return messages[last + 1 :]


def outputs_given(conversation: Conversation) -> list[tuple[str, str]]:
    """(function name, output) of each function output after the last user message."""
    names = {call.call_id: call.name for m in conversation.messages for call in m.calls}
    return [
        (names.get(m.call_id or "", "a function"), m.text())
        for m in since_last_user(conversation)
        if m.role == "tool"
    ]


def calls_to_make(conversation: Conversation, prompt: str) -> list[tuple[FunctionSpec, str]]:
    """The calls this answer makes, each with its arguments as JSON text; empty: answer in text."""
    plan = conversation.request.tools
    if not plan.active:
        return []
    if plan.mode == "auto" and outputs_given(conversation):
        return []
    chosen: list[FunctionSpec]
    if plan.forced is not None:
        forced = plan.find(plan.forced)
        chosen = [forced] if forced is not None else []
    else:
        named = [(pos, spec) for spec in plan.functions if (pos := _position(spec, prompt)) is not None]
        if not named:  # a function named outright wins; otherwise those the prompt is about
            named = [
                (pos, spec) for spec in plan.functions if (pos := _topic_position(spec, prompt)) is not None
            ]
        chosen = [spec for _, spec in sorted(named, key=lambda pair: pair[0])]
        if not chosen and plan.mode == "required":
            chosen = [plan.functions[0]]
    if not plan.parallel:
        chosen = chosen[:1]
    return [(spec, json.dumps(instance_for(spec.parameters, prompt), ensure_ascii=False)) for spec in chosen]


def answer_with_outputs(outputs: list[tuple[str, str]]) -> str:
    """The text answer once the functions have answered: it says what each returned."""
    lines = [f"The function {name} returned: “{_excerpt(output, 300)}”." for name, output in outputs]
    return "This is the sandbox's simulated model, answering from your functions' results. " + " ".join(lines)


def _excerpt(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
