"""Translation between a resolved Responses conversation and the two wire formats an upstream may speak.

Chat Completions (llama.cpp's server, llama-cpp-python, older Ollama and vLLM) and the Responses API
itself: requests are built from the sandbox's typed request, and streamed answers are read back into
plain text deltas, so the sandbox always streams its own well-formed events.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from ..request import Message
from .base import Conversation

_CHAT_ROLES = {"developer": "system"}  # chat servers know system, user, assistant


class UpstreamFailure(Exception):
    """The upstream's stream reported a failure after it began (an `error` or `response.failed` event)."""

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


def chat_request(
    conversation: Conversation, model: str, schema_in_json_object: bool = False
) -> dict[str, Any]:
    """A streamed `POST /chat/completions` body for the conversation.

    `schema_in_json_object` sends a JSON schema the way llama.cpp's servers take it, `{"type": "json_object",
    "schema": ...}`, for the servers that refuse the standard `json_schema` response format.
    """
    request = conversation.request
    messages: list[dict[str, Any]] = []
    if request.instructions:
        messages.append({"role": "system", "content": request.instructions})
    for message in conversation.messages:
        role = _CHAT_ROLES.get(message.role, message.role)
        messages.append({"role": role, "content": _chat_content(message)})
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
    body["stream_options"] = {"include_usage": True}
    body.update(_common_options(conversation))
    if request.max_output_tokens is not None:
        body["max_tokens"] = request.max_output_tokens
    text_format = request.text_format
    if text_format["type"] == "json_object":
        body["response_format"] = {"type": "json_object"}
    elif text_format["type"] == "json_schema" and schema_in_json_object:
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
    """A streamed `POST /responses` body carrying the whole history (the sandbox keeps the chain itself)."""
    request = conversation.request
    items = [
        {"role": message.role, "content": _responses_content(message)} for message in conversation.messages
    ]
    body: dict[str, Any] = {"model": model, "input": items, "stream": True}
    body.update(_common_options(conversation))
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


async def chat_deltas(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The text of a streamed chat completion, delta by delta."""
    async for chunk in _sse_data(lines):
        if not isinstance(chunk, dict):
            continue
        if isinstance(chunk.get("error"), dict):
            raise UpstreamFailure(str(chunk["error"].get("message") or chunk["error"]))
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            content = delta.get("content") if isinstance(delta, dict) else None
            if isinstance(content, str) and content:
                yield content


_DELTA_EVENTS = {"response.output_text.delta", "response.text.delta"}


async def responses_deltas(lines: AsyncIterator[str]) -> AsyncIterator[str]:
    """The text of a streamed Responses answer; a failure event becomes an `UpstreamFailure`."""
    async for event in _sse_data(lines):
        if not isinstance(event, dict):
            continue
        kind = event.get("type")
        if kind in _DELTA_EVENTS and isinstance(event.get("delta"), str):
            yield event["delta"]
        elif kind == "error":
            raise UpstreamFailure(str(event.get("message") or "an error event"))
        elif kind == "response.failed":
            response = event.get("response")
            error = response.get("error") if isinstance(response, dict) else None
            message = error.get("message") if isinstance(error, dict) else None
            raise UpstreamFailure(str(message or "the response failed"))
        elif kind in ("response.completed", "response.incomplete"):
            return
