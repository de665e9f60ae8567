"""The gateway's raw ASGI plumbing: a request's body read within the size limit and the deadline (and replayed
to the handler), the gateway's own answers, and the headers it adds to the handler's."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from starlette.types import Message, Receive, Send

from app.sandbox.config import SandboxConfig
from app.sandbox.errors import error_bytes


async def bounded_body(
    receive: Receive, send: Send, headers: list[tuple[bytes, bytes]], config: SandboxConfig
) -> tuple[Receive, bytes] | None:
    """Read the body up to the limit: (its replay, the body); past the limit answer 413, past the deadline
    408 (a body sent a byte at a time would hold its connection for ever), and return None."""
    limit = config.max_body_bytes
    message = f"The request body is larger than the limit of {limit:,} bytes."
    chunks: list[bytes] = []
    size = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + config.body_timeout
    while True:
        try:
            event = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
        except TimeoutError:
            late = f"The request body did not arrive within {config.body_timeout:g} s."
            await respond(send, 408, error_bytes(408, late, "request_timeout"), headers)
            return None
        if event["type"] == "http.disconnect":
            return None
        chunk = event.get("body", b"")
        size += len(chunk)
        if size > limit:
            await respond(send, 413, error_bytes(413, message, "request_too_large"), headers)
            return None
        chunks.append(chunk)
        if not event.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay, body


async def respond(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def with_headers(send: Send, on_error: list[tuple[bytes, bytes]], always: list[tuple[bytes, bytes]]) -> Send:
    """`send` that adds `always` to the response's headers, and `on_error` to those of an error.

    A plain function returning send's awaitable, not a coroutine of its own: one frame less on every
    message of every response."""

    def wrapped(message: Message) -> Awaitable[None]:
        if message["type"] == "http.response.start":
            headers: list[Any] = [*message.get("headers", ()), *always]
            if message["status"] >= 400:
                headers += on_error
            message = {**message, "headers": headers}
        return send(message)

    return wrapped
