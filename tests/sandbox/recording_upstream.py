"""A Chat Completions server on loopback that records every body it receives and answers as
llama-cpp-python's server (0.3.36) does, for the upstream engine's tests that must run on every machine;
with `speaks_responses` it answers `/responses` too, as LiteLLM's proxy does (whole or streamed, its usage
in both).

What it copies from the real server (tests/peers meets that one): a message whose `content` is null is a 500
with pydantic's validation errors; `tool_choice: "required"` is not enforced (it answers in text);
`stream_options` is ignored and a stream carries no usage, unless `usage_in_stream` makes it honour
`include_usage` as llama.cpp's own server and LiteLLM do; a whole answer carries the server's own usage.
`refuses_stream_options` answers that parameter with a 400, as servers that do not know it do.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {"prompt_tokens": 17, "completion_tokens": 16, "total_tokens": 33}  # as llama.cpp counted a story
TRACEBACK = (
    "litellm.BadRequestError: the model crashed\n"
    "Traceback (most recent call last):\n"
    '  File "proxy.py", line 1, in <module>\n'
    "ValueError: boom"
)
NULL_CONTENT = (
    "7 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'messages', 1, "
    "'ChatCompletionRequestAssistantMessage', 'content'), 'msg': 'Input should be a valid string'}"
)


@dataclass
class Answer:
    """What the model says to a prompt, sent whole or as chunks."""

    text: str = ""
    calls: list[tuple[str, list[str]]] = field(default_factory=list)  # (name, argument pieces)
    finish: str = "stop"
    failure: str | None = None  # sent mid-stream (or as a 500 when whole) after the text


def answer_to(prompt: str) -> Answer:
    """The scripted answer: a call for weather (unless a function's output is given), a failure, a story."""
    if "Sunny" in prompt:
        return Answer("It is sunny in Oslo.")
    if "weather" in prompt:
        return Answer(calls=[("get_weather", ['{"city": ', '"Oslo", "days": 2}'])], finish="tool_calls")
    if "fail" in prompt:
        return Answer("Half an", failure=TRACEBACK)
    if "story" in prompt:
        return Answer("A long answer that the upstream cut", finish="length")
    return Answer("Hello there.")


@dataclass
class RecordingUpstream:
    url: str  # ending in /v1
    bodies: list[dict[str, Any]]
    usage_in_stream: bool = False
    refuses_stream_options: bool = False
    speaks_responses: bool = False  # answers `/responses` too, as LiteLLM's proxy does


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _tool_calls(answer: Answer) -> list[dict[str, Any]]:
    return [
        {"id": f"call_{index}", "type": "function", "function": {"name": name, "arguments": "".join(pieces)}}
        for index, (name, pieces) in enumerate(answer.calls)
    ]


def _whole(answer: Answer) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
    if answer.calls:
        message["tool_calls"] = _tool_calls(answer)
    choice = {"index": 0, "message": message, "finish_reason": answer.finish}
    return {"id": "chatcmpl-1", "object": "chat.completion", "choices": [choice], "usage": USAGE}


def _chunks(answer: Answer, with_usage: bool) -> Iterator[dict[str, Any]]:
    if answer.text:
        yield _chunk({"role": "assistant", "content": answer.text})
    if answer.failure:
        yield {"error": {"message": answer.failure, "code": 500}}
        return
    for index, (name, pieces) in enumerate(answer.calls):
        call = {"index": index, "id": f"call_{index}", "type": "function"}
        yield _chunk({"tool_calls": [{**call, "function": {"name": name, "arguments": ""}}]})
        for piece in pieces:
            yield _chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield _chunk({}, answer.finish)
    if with_usage:
        yield {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [], "usage": USAGE}


def _response(answer: Answer) -> dict[str, Any]:
    """A Responses object as LiteLLM's proxy builds it from a chat completion."""
    output: list[dict[str, Any]] = []
    if answer.text:
        part = {"type": "output_text", "text": answer.text, "annotations": []}
        output.append({"type": "message", "id": "msg_1", "role": "assistant", "content": [part]})
    for call in _tool_calls(answer):
        function = call["function"]
        output.append({"type": "function_call", "call_id": call["id"], **function})
    usage = {"input_tokens": USAGE["prompt_tokens"], "output_tokens": USAGE["completion_tokens"]}
    status = "incomplete" if answer.finish == "length" else "completed"
    return {"id": "resp_1", "object": "response", "status": status, "output": output, "usage": usage}


def _response_events(answer: Answer) -> Iterator[dict[str, Any]]:
    whole = _response(answer)
    yield {"type": "response.created", "response": {**whole, "status": "in_progress", "output": []}}
    for index, item in enumerate(whole["output"]):
        if item["type"] == "message":
            delta = item["content"][0]["text"]
            yield {"type": "response.output_text.delta", "output_index": index, "delta": delta}
        else:
            yield {"type": "response.output_item.added", "output_index": index, "item": item}
            yield {"type": "response.output_item.done", "output_index": index, "item": item}
    yield {"type": f"response.{whole['status']}", "response": whole}


def _handler(upstream: RecordingUpstream) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            if self.path.endswith("/responses") and upstream.speaks_responses:
                upstream.bodies.append(body)
                answer = answer_to(json.dumps(body["input"]))
                if body.get("stream"):
                    self._stream(_response_events(answer))
                else:
                    self._json(200, _response(answer))
                return
            if not self.path.endswith("/chat/completions"):
                self._json(404, {"detail": "Not Found"})
                return
            upstream.bodies.append(body)
            if any(message.get("content", "") is None for message in body["messages"]):
                self._json(500, {"error": {"message": NULL_CONTENT, "type": "internal_server_error"}})
                return
            if "stream_options" in body and upstream.refuses_stream_options:
                message = "Unrecognized request argument supplied: stream_options"
                self._json(400, {"error": {"message": message, "type": "invalid_request_error"}})
                return
            answer = answer_to(json.dumps(body["messages"]))
            if not body.get("stream"):
                if answer.failure:
                    self._json(500, {"error": {"message": answer.failure}})
                else:
                    self._json(200, _whole(answer))
                return
            asked = bool((body.get("stream_options") or {}).get("include_usage"))
            self._stream(_chunks(answer, asked and upstream.usage_in_stream))

        def _stream(self, events: Iterator[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            for event in events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_: Any) -> None:
            pass

    return Handler


@contextmanager
def recording_upstream(
    usage_in_stream: bool = False, refuses_stream_options: bool = False, speaks_responses: bool = False
) -> Iterator[RecordingUpstream]:
    """The server, running on its own thread for the block."""
    upstream = RecordingUpstream("", [], usage_in_stream, refuses_stream_options, speaks_responses)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream))
    # shutdown() waits for serve_forever to look at its flag, every poll_interval (0.5 s by default).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    upstream.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield upstream
    finally:
        server.shutdown()
        server.server_close()
