"""WebSocket mode on `/v1/responses`: `response.create` messages over one socket, answered with the stream's
events as JSON text frames, one response at a time, in the order sent.

The gateway admitted the upgrade as it admits any request (source address, key, rate limit). Each message is
a response's body with `"type": "response.create"` (`stream` is implied and ignored; `stream_id`, the
client's lane, comes back on every event of that response). `previous_response_id` may name the socket's
last response though it was not stored (`store: false`): the socket keeps that one in memory, as the service
does, and an older unstored one is `previous_response_not_found`, after which a client sends the whole
conversation again; so is the one a failed continuation named, which the specification has the socket evict.
A refused message is an `error` event with the HTTP status it would have had; the socket stays open for the
next. Each message counts against the key's rate limit, as a request does (429).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from contextlib import aclosing
from typing import Any

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from app.sandbox.errors import ServiceError, one_line
from app.sandbox.gateway.limits import RateLimiter
from app.sandbox.gateway.source import bearer_token
from app.sandbox.request.engine_request import Message
from app.sandbox.routes.project import project_of
from app.sandbox.routes.responses import ResponsesRoutes

_ENVELOPE = ("type", "stream", "stream_id")  # the socket's own fields, not a response's parameters


class ResponsesSocket:
    def __init__(self, routes: ResponsesRoutes, limiter: Callable[[], RateLimiter]) -> None:
        self.routes = routes
        self.limiter = limiter  # the gateway's: each message is a request, counted as one over HTTP is

    async def serve(self, socket: WebSocket) -> None:
        try:
            project_id = project_of(socket)
        except ServiceError as refusal:  # an admin key: refused at the handshake, as over HTTP
            await socket.send_denial_response(JSONResponse(refusal.body(), status_code=refusal.status))
            return
        await socket.accept()
        token = bearer_token(socket.scope["headers"]) or ""
        kept: tuple[str, list[Message]] | None = None  # the last response: its id and whole conversation
        try:
            while True:
                frame = await socket.receive()
                if frame["type"] == "websocket.disconnect":
                    return
                message: dict[str, Any] = {}
                try:
                    text = _frame_text(frame)
                    self._count(token)
                    message = _create_message(text)
                    kept = await self._answer(socket, project_id, message, kept) or _evicted(kept, message)
                except ServiceError as refusal:
                    body = refusal.body()
                    if refusal.headers:  # a 429's retry-after: under `error.headers`, as the service's are
                        body["error"]["headers"] = refusal.headers
                    refused = {"type": "error", "status": refusal.status, **body}
                    await socket.send_text(json.dumps(refused))
                    kept = _evicted(kept, message)
        except WebSocketDisconnect:
            return

    def _count(self, token: str) -> None:
        limiter = self.limiter()
        allowed, _, reset = limiter.take(token)
        if not allowed:
            retry = max(1, math.ceil(reset))
            message = f"Rate limit of {limiter.per_minute} requests per minute reached; retry in {retry} s."
            raise ServiceError(429, message, "rate_limit_exceeded", headers={"retry-after": str(retry)})

    async def _answer(
        self,
        socket: WebSocket,
        project_id: str,
        message: dict[str, Any],
        kept: tuple[str, list[Message]] | None,
    ) -> tuple[str, list[Message]] | None:
        """One `response.create`, its events sent; the response to keep for the next (None: it failed)."""
        lane = message.get("stream_id")
        body = {name: value for name, value in message.items() if name not in _ENVELOPE}
        if body.get("background"):
            raise ServiceError(
                400,
                "'background' is not available in WebSocket mode: send the request over HTTP to run it in "
                "the background.",
                "unsupported_parameter",
                "background",
            )
        conversation, builder, engine = await self.routes.prepared(project_id, body, kept)
        extra = {"stream_id": lane} if isinstance(lane, str) else {}
        try:
            async with aclosing(self.routes.run(project_id, conversation, builder, engine)) as events:
                async for event in events:
                    await socket.send_text(json.dumps({**event, **extra}, separators=(",", ":")))
                    await asyncio.sleep(0)  # a turn per event, so a client that left is seen (responses.py)
        except WebSocketDisconnect:
            raise
        except Exception as error:  # after the first event: an `error` event, as a stream ends with one
            code = error.code if isinstance(error, ServiceError) and error.code else "server_error"
            reason = one_line(error.message if isinstance(error, ServiceError) else str(error))
            # Nested under `error`, as both the specification's and the official client's socket events are.
            payload = {
                "type": "server_error",
                "code": code,
                "message": f"The stream failed: {reason}",
                "param": None,
            }
            failed = builder.event("error", error=payload)
            await socket.send_text(json.dumps({**failed, **extra}))
            return None
        if builder.response["status"] == "failed":
            return None
        answer = Message("assistant", [{"type": "output_text", "text": builder.text}], calls=builder.calls)
        return builder.response["id"], [*conversation.messages, answer]


def _evicted(
    kept: tuple[str, list[Message]] | None, message: dict[str, Any]
) -> tuple[str, list[Message]] | None:
    """What the socket keeps after a turn failed: the specification has a failed continuation evict the
    response it named, so continuing from it again (unstored) is `previous_response_not_found`."""
    if kept is not None and kept[0] == message.get("previous_response_id"):
        return None
    return kept


def _frame_text(frame: Any) -> str:
    """A frame's text; a binary frame is read as UTF-8 text, as some clients send JSON."""
    if frame.get("text") is not None:
        return str(frame["text"])
    try:
        return bytes(frame.get("bytes") or b"").decode()
    except UnicodeDecodeError:
        raise ServiceError(400, "A message must be JSON text (UTF-8).", "invalid_json") from None


def _create_message(text: str) -> dict[str, Any]:
    try:
        message = json.loads(text)
    except ValueError:
        message = None
    if not isinstance(message, dict):
        raise ServiceError(
            400, 'A message must be a JSON object: {"type": "response.create", ...}.', "invalid_json"
        )
    if message.get("type") != "response.create":
        kind = message.get("type")
        raise ServiceError(
            400,
            f"Unknown message type {json.dumps(kind)}: the socket takes 'response.create'.",
            "invalid_type",
            "type",
        )
    return message
