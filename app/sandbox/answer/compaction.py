"""Compaction: a conversation's turns other than the user's, replaced by one sealed `compaction` item.

As the service documents it, the compacted output is every user message as it was, then a single compaction
item. The sandbox's item holds a summary it writes itself (each assistant answer, call, output and developer
turn, excerpted), sealed as reasoning content is (sealed.py), so only this sandbox opens it. Sent back as input,
the item is read as one developer turn with that summary, by every engine alike (engine_request.py).
"""

from __future__ import annotations

import time
from typing import Any

from app.sandbox.answer.estimate import count_tokens
from app.sandbox.answer.sealed import ReasoningContent, Sealer
from app.sandbox.answer.truncation import input_tokens
from app.sandbox.engines.base import Conversation
from app.sandbox.ids import new_id
from app.sandbox.request.engine_request import Message

SUMMARY_HEADING = "Summary of the earlier conversation (compacted by the sandbox):"
_EXCERPT = 300  # characters kept of each replaced turn
_SUMMARY_LIMIT = 8_000  # characters of the whole summary; the newest turns are kept when it is longer


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 1] + "…"


def _lines(message: Message, names: dict[str, str]) -> list[str]:
    """What one replaced turn says, a line or more; an earlier summary is kept whole."""
    text = message.text()
    if text.startswith(SUMMARY_HEADING):
        return text.removeprefix(SUMMARY_HEADING).strip().splitlines()
    if message.role == "tool":
        return [f"- {names.get(message.call_id or '', 'a function')} returned: {_excerpt(text)}"]
    lines = [f"- {message.role}: {_excerpt(text)}"] if text.strip() else []
    return lines + [f"- assistant called {call.name}({_excerpt(call.arguments)})" for call in message.calls]


def summary_of(messages: list[Message]) -> str:
    names = {call.call_id: call.name for message in messages for call in message.calls}
    lines = [line for message in messages if message.role != "user" for line in _lines(message, names)]
    while lines and sum(len(line) + 1 for line in lines) > _SUMMARY_LIMIT:
        lines.pop(0)
    return "\n".join([SUMMARY_HEADING, *(lines or ["- (no turns besides the user's)"])])


def _user_item(message: Message) -> dict[str, Any]:
    parts = [dict(part) for part in message.parts]
    return {"type": "message", "id": new_id("msg"), "role": "user", "status": "completed", "content": parts}


def compaction_item(summary: str, sealer: Sealer) -> dict[str, Any]:
    sealed = sealer.seal(ReasoningContent(summary, count_tokens(summary)))
    return {"type": "compaction", "id": new_id("cmp"), "encrypted_content": sealed}


def threshold_of(conversation: Conversation, window: int) -> int | None:
    """`context_management`'s compaction threshold; without one, 80% of the context window."""
    entries = conversation.request.body.context_management or []
    if not entries:
        return None
    return entries[0].compact_threshold or window * 4 // 5


def compact_history(conversation: Conversation, window: int) -> tuple[Conversation, str | None]:
    """The conversation with its earlier turns compacted when its input passes the threshold (this
    request's own input is kept whole: its function outputs answer calls the engine must still see)."""
    threshold = threshold_of(conversation, window)
    history = conversation.history
    if threshold is None or not history or input_tokens(conversation) <= threshold:
        return conversation, None
    summary = summary_of(history)
    kept = [message for message in history if message.role == "user"]
    summary_turn = Message("developer", [{"type": "input_text", "text": summary}])
    return Conversation(conversation.request, [*kept, summary_turn]), summary


def compacted(conversation: Conversation, sealer: Sealer) -> dict[str, Any]:
    """The `response.compaction` object for the whole conversation (history, then this request's input)."""
    messages = conversation.messages
    summary = summary_of(messages)
    summary_tokens = count_tokens(summary)
    item = compaction_item(summary, sealer)
    used = input_tokens(conversation)
    return {
        "id": new_id("resp"),
        "object": "response.compaction",
        "created_at": int(time.time()),
        "output": [*(_user_item(m) for m in messages if m.role == "user"), item],
        "usage": {
            "input_tokens": used,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": summary_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": used + summary_tokens,
        },
    }
