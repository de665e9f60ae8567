"""Translation between a resolved Responses conversation and the two wire formats an upstream may speak.

Chat Completions (llama.cpp's server, llama-cpp-python, older Ollama and vLLM) and the Responses API
itself: requests are built from the sandbox's typed request, and streamed answers are read back into
engine steps (text deltas, function-call deltas, the upstream's own usage and whether it cut the answer at
max_output_tokens), so the sandbox always streams its own well-formed events. Whole answers, asked for
when the client does not stream, are read in upstream_whole.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from app.sandbox.request.engine_request import Message

from .base import Conversation, FunctionCallDelta, Incomplete, Step, TextDelta, TokenizerUsage
from .upstream_tools import (
    WireNames,
    chat_calls,
    chat_tool_options,
    responses_items,
    responses_tool_options,
)

_CHAT_ROLES = {"developer": "system"}  # chat servers know system, user, assistant


@dataclass(frozen=True)
class ChatForm:
    """What a chat server takes, learnt from its refusals: `schema_in_json_object` sends a JSON schema the way
    llama.cpp's servers take it (`{"type": "json_object", "schema": ...}`) to those that refuse the standard
    `json_schema` format; `usage_in_stream` asks a stream for its usage (`stream_options`), which a few
    servers refuse as an unknown parameter."""

    schema_in_json_object: bool = False
    usage_in_stream: bool = True


class UpstreamFailure(Exception):
    """The upstream's answer reported a failure: a stream after it began (an `error` or `response.failed`
    event), or a whole answer that carries an error."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _chat_content(message: Message) -> str | list[dict[str, Any]]:
    # Plain strings wherever the message holds only text: every chat server accepts those.
    if not message.images or message.role == "assistant":
        return message.text()
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        if part["type"] == "input_image":
            image = {"url": part["image_url"], "detail": part.get("detail", "auto")}
            parts.append({"type": "image_url", "image_url": image})
        else:
            parts.append({"type": "text", "text": part["text"]})
    return parts


def _common_options(conversation: Conversation) -> dict[str, Any]:
    request = conversation.request
    options: dict[str, Any] = {}
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.top_p is not None:
        options["top_p"] = request.top_p
    return options


def chat_request(conversation: Conversation, model: str, form: ChatForm = ChatForm()) -> dict[str, Any]:
    """A `POST /chat/completions` body for the conversation, streamed when the client sees the answer live."""
    request = conversation.request
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    for message in conversation.messages:
        role = _CHAT_ROLES.get(message.role, message.role)
        if message.role == "tool":
            messages.append({"role": "tool", "tool_call_id": message.call_id, "content": message.text()})
        elif message.calls:
            calls = chat_calls(message.calls)
            # "" where there is no text, never null: llama-cpp-python's server refuses a null content.
            messages.append({"role": role, "content": message.text(), "tool_calls": calls})
        else:
            messages.append({"role": role, "content": _chat_content(message)})
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": conversation.live}
    if conversation.live and form.usage_in_stream:
        body["stream_options"] = {"include_usage": True}  # the upstream's own counts, as a last chunk
    body.update(_common_options(conversation))
    body.update(chat_tool_options(request.tools))
    if request.max_output_tokens is not None:
        body["max_tokens"] = request.max_output_tokens
    text_format = request.text_format
    if text_format["type"] == "json_object":
        body["response_format"] = {"type": "json_object"}
    elif text_format["type"] == "json_schema" and form.schema_in_json_object:
        body["response_format"] = {"type": "json_object", "schema": text_format["schema"]}
    elif text_format["type"] == "json_schema":
        schema = {key: text_format[key] for key in ("name", "schema", "strict") if key in text_format}
        body["response_format"] = {"type": "json_schema", "json_schema": schema}
    return body


def _responses_content(message: Message) -> str | list[dict[str, Any]]:
    if not message.images:
        return message.text()
    return [dict(part) for part in message.parts]


def responses_request(conversation: Conversation, model: str) -> dict[str, Any]:
    """A `POST /responses` body carrying the whole history (the sandbox keeps the chain itself), streamed
    when the client sees the answer live."""
    request = conversation.request
    items = [
        item
        for message in conversation.messages
        for item in responses_items(message, _responses_content(message))
    ]
    body: dict[str, Any] = {"model": model, "input": items, "stream": conversation.live}
    body.update(_common_options(conversation))
    body.update(responses_tool_options(request.tools))
    if request.instructions:
        body["instructions"] = request.instructions
    if request.max_output_tokens is not None:
        body["max_output_tokens"] = request.max_output_tokens
    if request.text_format["type"] != "text":
        body["text"] = {"format": request.text_format}
    return body


async def _sse_data(lines: AsyncIterator[str]) -> AsyncIterator[Any]:
    """The JSON payloads of an SSE stream; `[DONE]` ends it, comments and other fields are skipped."""
    async for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        if not data:
            continue
        try:
            yield json.loads(data)
        except ValueError:
            raise UpstreamFailure(f"it sent a malformed stream event: {data[:80]!r}") from None


def count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def chat_usage(chunk: dict[str, Any]) -> tuple[int, int] | None:
    """A chat completion's (or a stream's last chunk's) own counts (prompt, completion), when it holds both."""
    usage = chunk.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt, completion = count(usage.get("prompt_tokens")), count(usage.get("completion_tokens"))
    return None if prompt is None or completion is None else (prompt, completion)


def end_steps(usage: tuple[int, int] | None, cut: bool) -> list[Step]:
    """The last steps: the upstream's own counts when it sent them, and whether it hit max_output_tokens."""
    if usage is not None:
        return [TokenizerUsage(usage[0], usage[1], incomplete=cut)]
    return [Incomplete()] if cut else []


async def chat_deltas(lines: AsyncIterator[str], names: WireNames) -> AsyncIterator[Step]:
    """A streamed chat completion as steps: its text, its tool calls, and how it ended."""
    usage: tuple[int, int] | None = None
    cut = False
    called: dict[int, str] = {}  # a call's index -> its wire name (sent in the call's first chunk only)
    async for chunk in _sse_data(lines):
        if not isinstance(chunk, dict):
            continue
        if isinstance(chunk.get("error"), dict):
            raise UpstreamFailure(str(chunk["error"].get("message") or chunk["error"]))
        usage = chat_usage(chunk) or usage
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            cut = cut or choice.get("finish_reason") == "length"
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            content = delta.get("content")
            if isinstance(content, str) and content:
                yield TextDelta(content)
            for call in delta.get("tool_calls") or []:
                piece = _chat_call(call, called, names)
                if piece is not None:
                    yield piece
    for step in end_steps(usage, cut):
        yield step


def _chat_call(call: Any, called: dict[int, str], names: WireNames) -> FunctionCallDelta | None:
    if not isinstance(call, dict):
        return None
    index = call.get("index", len(called))
    function = call.get("function") if isinstance(call.get("function"), dict) else {}
    if not isinstance(index, int) or not isinstance(function, dict):
        return None
    if isinstance(function.get("name"), str) and function["name"]:
        called.setdefault(index, function["name"])
    if index not in called:
        return None
    arguments = function.get("arguments")
    name, namespace = names.back(called[index])
    return FunctionCallDelta(index, name, arguments if isinstance(arguments, str) else "", namespace)


_DELTA_EVENTS = {"response.output_text.delta", "response.text.delta"}


def responses_usage(response: Any) -> tuple[int, int] | None:
    """A Responses answer's own counts (input, output), when it holds both."""
    usage = response.get("usage") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return None
    given, made = count(usage.get("input_tokens")), count(usage.get("output_tokens"))
    return None if given is None or made is None else (given, made)


async def responses_deltas(lines: AsyncIterator[str], names: WireNames) -> AsyncIterator[Step]:
    """A streamed Responses answer as steps; a failure event becomes an `UpstreamFailure`."""
    called: dict[int, tuple[str, bool]] = {}  # output index -> (wire name, whether arguments came as deltas)
    async for event in _sse_data(lines):
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        index = event.get("output_index")
        given = event.get("item")
        item: dict[str, Any] = given if isinstance(given, dict) else {}
        if kind in _DELTA_EVENTS and isinstance(event.get("delta"), str):
            yield TextDelta(event["delta"])
        elif kind == "response.output_item.added" and item.get("type") == "function_call":
            if isinstance(index, int) and isinstance(item.get("name"), str):
                called[index] = (item["name"], False)
                yield FunctionCallDelta(index, *_named(names, item["name"], ""))
        elif kind == "response.function_call_arguments.delta" and isinstance(index, int) and index in called:
            called[index] = (called[index][0], True)
            yield FunctionCallDelta(index, *_named(names, called[index][0], str(event.get("delta") or "")))
        elif kind == "response.output_item.done" and isinstance(index, int) and index in called:
            if not called[index][1] and isinstance(item.get("arguments"), str):  # no deltas: all at once
                yield FunctionCallDelta(index, *_named(names, called[index][0], item["arguments"]))
        elif kind == "error":
            raise UpstreamFailure(str(event.get("message") or "an error event"))
        elif kind == "response.failed":
            response = event.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            raise UpstreamFailure(str(message or "the response failed"))
        elif kind in ("response.completed", "response.incomplete"):
            for step in end_steps(responses_usage(event.get("response")), kind == "response.incomplete"):
                yield step
            return


def _named(names: WireNames, wire_name: str, arguments: str) -> tuple[str, str, str | None]:
    name, namespace = names.back(wire_name)
    return name, arguments, namespace
