"""A WebSocket upgrade through the gateway's checks: its refusals, written for HTTP, as the handshake's answer.

The gateway judges an upgrade's head as it judges any request's (source address, allowlists, key, rate
limit). What it sends to refuse one (`http.response.*`) becomes the ASGI denial response
(`websocket.http.response.*`): the client sees the same 401, 403 or 429 with the same JSON body. A server
without that extension gets a close before the handshake completes (a 403 there).
"""

from __future__ import annotations

from starlette.types import Message, Receive, Scope, Send

_DENIAL = "websocket.http.response"


def refusals_as_handshake(scope: Scope, receive: Receive, send: Send) -> Send:
    """`send` for the gateway on an upgrade: its HTTP refusal turned into the handshake's refusal."""
    can_answer = _DENIAL in scope.get("extensions", {})
    connected = False

    async def translated(message: Message) -> None:
        nonlocal connected
        kind = message["type"]
        if not kind.startswith("http.response."):
            await send(message)  # the app's own websocket messages, once admitted
            return
        if not connected:  # the ASGI order: the connect is received before anything is sent
            await receive()
            connected = True
        if not can_answer:
            if kind == "http.response.start":
                await send({"type": "websocket.close", "code": 1008})
            return
        await send({**message, "type": "websocket." + kind})

    return translated
