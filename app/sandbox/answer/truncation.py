"""`truncation: "auto"`: what is dropped, and in what order, when a request does not fit the context window.

Oldest first, wherever a turn came from: the turns chained by `previous_response_id`, then the turns sent in
`input` itself (all but the newest message), then the start of the newest message's text, so that a single
over-long string still fits. Only the instructions are never cut: when they alone are too long, that is a 400.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable

from app.sandbox.answer.estimate import TOKEN, count_tokens
from app.sandbox.contract.validate import bad
from app.sandbox.engines.base import Conversation
from app.sandbox.request.engine_request import Message

CUT_MARK = "[…] "  # where the start of a message was cut away: the engine (and a person reading) sees it


def input_tokens(conversation: Conversation) -> int:
    total = count_tokens(conversation.request.instructions or "")
    for message in conversation.messages:
        total += message_tokens(message)
    return total


def message_tokens(message: Message) -> int:
    calls = sum(count_tokens(call.name) + count_tokens(call.arguments) for call in message.calls)
    return 4 + count_tokens(message.text()) + sum(image.tokens() for image in message.images) + calls


def fit_context(conversation: Conversation, window: int) -> Conversation:
    """The conversation as sent when it fits `window` tokens; else a 400, or with `truncation: auto` the
    conversation with its oldest parts dropped until it fits."""
    if input_tokens(conversation) <= window:
        return conversation
    request = conversation.request
    if request.body.truncation != "auto":
        raise bad(
            f"The input is longer than the model's context window of {window:,} tokens; "
            "shorten it, or send truncation: 'auto' to drop the oldest turns.",
            "input",
            "context_length_exceeded",
        )
    history = list(conversation.history)
    while history and input_tokens(Conversation(request, history)) > window:
        history.pop(0)
    messages = list(request.messages)
    while (
        len(messages) > 1
        and input_tokens(Conversation(dataclasses.replace(request, messages=messages), [])) > window
    ):
        messages.pop(0)
    fitted = Conversation(dataclasses.replace(request, messages=messages), history)
    excess = input_tokens(fitted) - window
    if excess <= 0:
        return fitted
    if not messages:
        raise _instructions_too_long(window)
    newest = _cut_start(messages[-1], excess + count_tokens(CUT_MARK))
    if (
        newest is None
        or input_tokens(Conversation(dataclasses.replace(request, messages=[newest]), [])) > window
    ):
        raise _instructions_too_long(window)
    return Conversation(dataclasses.replace(request, messages=[newest]), [])


async def fit_counted(
    conversation: Conversation, window: int, excess: Callable[[Conversation], Awaitable[int]]
) -> Conversation:
    """`fit_context`, then held to an engine's own count: `excess` tells by how many of the model's tokens
    the prompt overflows its context (0 or less: it fits). Past it the answer is the same 400 before any
    event, or with `truncation: auto` the estimate's window shrinks by the overflow and the fitting runs
    again (a few rounds: each takes at least the overflow away)."""
    fitted = fit_context(conversation, window)
    for _ in range(4):
        over = await excess(fitted)
        if over <= 0:
            return fitted
        if conversation.request.body.truncation != "auto":
            raise bad(
                f"The input is {over:,} tokens longer than the model's context window allows; "
                "shorten it, or send truncation: 'auto' to drop the oldest turns.",
                "input",
                "context_length_exceeded",
            )
        window -= over
        if window < 1:
            break
        fitted = fit_context(conversation, window)
    raise _instructions_too_long(window)


def _cut_start(message: Message, tokens: int) -> Message | None:
    """The message without the first `tokens` tokens of its text (across its text parts, oldest first);
    None when its text is not long enough to give them (its images, say, are what is too large)."""
    parts, left = [], tokens
    for part in message.parts:
        text = part.get("text")
        if left <= 0 or not isinstance(text, str):
            parts.append(part)
            continue
        starts = [match.start() for match in TOKEN.finditer(text)]
        if len(starts) <= left:
            left -= len(starts)
            continue  # the whole part goes
        parts.append({**part, "text": CUT_MARK + text[starts[left] :]})
        left = 0
    if left > 0 or not parts:
        return None
    return dataclasses.replace(message, parts=parts)


def _instructions_too_long(window: int) -> Exception:
    return bad(
        f"The instructions alone (or this message's images) are longer than the model's context window of "
        f"{window:,} tokens, and truncation drops only turns and text: shorten them.",
        "instructions",
        "context_length_exceeded",
    )
