"""Whole (non-streamed) upstream answers read into engine steps: a chat completion or a Responses object.

The upstream engine asks for a whole answer when its client waits for one (no stream): the upstream then
counts the usage itself (llama-cpp-python's server sends none in a stream), and a proxy's streaming
translation of tool calls is never involved.
"""

from __future__ import annotations

import json
from typing import Any

from .base import FunctionCallDelta, Step, TextDelta
from .chat_completions import UpstreamFailure, chat_usage, end_steps, responses_usage
from .upstream_tools import WireNames


def _failure(body: dict[str, Any]) -> str | None:
    """The reason an answer carries in its `error`, or None."""
    error = body.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or error)
    return str(error) if error else None


def _arguments(value: Any) -> str:
    # A JSON text, as the standard sends it; a few servers send the object itself.
    return value if isinstance(value, str) else json.dumps(value) if isinstance(value, dict) else ""


def _call(index: int, name: Any, arguments: Any, names: WireNames) -> list[Step]:
    if not isinstance(name, str) or not name:
        return []
    plain, namespace = names.back(name)
    return [FunctionCallDelta(index, plain, _arguments(arguments), namespace)]


def chat_answer(body: Any, names: WireNames) -> list[Step]:
    """A chat completion's first choice as steps: its text, its tool calls, then its usage and whether it
    was cut at max_tokens."""
    if not isinstance(body, dict):
        raise UpstreamFailure("it answered with JSON that is no chat completion")
    reason = _failure(body)
    if reason is not None:
        raise UpstreamFailure(reason)
    choices = [choice for choice in body.get("choices") or [] if isinstance(choice, dict)]
    if not choices:
        raise UpstreamFailure("its chat completion has no choice")
    choice = choices[0]
    given = choice.get("message")
    message: dict[str, Any] = given if isinstance(given, dict) else {}
    steps: list[Step] = []
    if isinstance(message.get("content"), str) and message["content"]:
        steps.append(TextDelta(message["content"]))
    for index, call in enumerate(message.get("tool_calls") or []):
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            steps += _call(index, function.get("name"), function.get("arguments"), names)
    return steps + end_steps(chat_usage(body), choice.get("finish_reason") == "length")


def responses_answer(body: Any, names: WireNames) -> list[Step]:
    """A Responses object's output as steps (text parts and function calls, in order), then its usage and
    whether it is incomplete; a failed one is an `UpstreamFailure`."""
    if not isinstance(body, dict):
        raise UpstreamFailure("it answered with JSON that is no response")
    reason = _failure(body)
    if reason is not None or body.get("status") == "failed":
        raise UpstreamFailure(reason or "the response failed")
    steps: list[Step] = []
    for index, item in enumerate(body.get("output") or []):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "message":
            for part in item.get("content") or []:
                text = part.get("text") if isinstance(part, dict) else None
                if isinstance(text, str) and text and part.get("type") == "output_text":
                    steps.append(TextDelta(text))
        elif item.get("type") == "function_call":
            steps += _call(index, item.get("name"), item.get("arguments"), names)
    return steps + end_steps(responses_usage(body), body.get("status") == "incomplete")
