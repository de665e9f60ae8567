"""Resources bind verbs to paths; the transport does the rest. Answers are parsed into typed models here."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from . import defaults
from .requests import ResponseCreateParams
from .streaming import ResponseStream
from .transport import Transport
from .wire import Response, parse_response


class Responses:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    async def create(self, body: ResponseCreateParams) -> Response:
        sent: ResponseCreateParams = {**body, "stream": False}
        result, _ = await self._transport.request(
            "POST", "/responses", json_body=sent, deadline=defaults.GENERATION_DEADLINE
        )
        return parse_response(result)

    def stream(self, body: ResponseCreateParams, on_sent: Callable[[], None] | None = None) -> ResponseStream:
        """`async with` it: the request is sent on entering, the response closed on leaving. `on_sent` is
        called once the request is written, while the server works on it."""
        sent: ResponseCreateParams = {**body, "stream": True}
        return ResponseStream(partial(self._transport.open_stream, "/responses", sent, on_sent=on_sent))

    async def retrieve(self, response_id: str) -> Response:
        result, _ = await self._transport.request("GET", f"/responses/{response_id}")
        return parse_response(result)
