"""WebSocket mode for a conversation (the profile's "Use WebSocket mode for responses"): one socket carries
its requests, one at a time; Qt-free, so the Playground and the benches run it the same way.

- A chained request the socket's server no longer knows (`previous_response_not_found`: a `store: false`
  response kept only in a socket that closed since) is sent again with the whole conversation, as the
  service's guide says, never again with the same parent.
- A socket that drops (or cannot be opened) before the answer's first text is opened again once and the
  request sent again; if that fails too, this request and the rest of the conversation go over HTTP, and
  the turn says so. A socket that drops after text arrived keeps the partial answer, as a dropped HTTP
  stream does; the next request opens a new socket.
- A server without WebSocket mode (the upgrade answered 404, 405 or 426) sends the conversation over HTTP.

Each frame sent and received goes to the turn's inspector (its `socket`, socket_log.py), the key never
among them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.api.requests import ResponseCreateParams
    from app.api.socket_mode import ResponsesSocket
    from app.core.playground.turns import Turn

NO_SOCKET_STATUSES = frozenset({404, 405, 426, 501})  # the server has no WebSocket mode on /responses
CHAIN_LOST = "previous_response_not_found"


class SocketChannel:
    """The socket of one conversation; `fallback` says why it went over HTTP instead, once it did."""

    def __init__(self) -> None:
        self._socket: ResponsesSocket | None = None
        self.fallback = ""  # why the conversation's requests go over HTTP ("" while the socket is used)

    @property
    def in_use(self) -> bool:
        return not self.fallback

    def socket_for(self, client: ServiceClient) -> ResponsesSocket:
        """The conversation's socket on `client`'s connection: a new one after a switch of profile."""
        if self._socket is None or self._socket.transport is not client.transport:
            self._socket = client.responses_socket()
        return self._socket

    def fall_back(self, why: str) -> None:
        self.fallback = why

    async def aclose(self) -> None:
        socket, self._socket = self._socket, None
        if socket is not None:
            await socket.aclose()


def whole_history(earlier: Sequence[Turn], turn: Turn, body: ResponseCreateParams) -> ResponseCreateParams:
    """`body` as a new chain: the whole conversation as input (this turn's message and the calls answered
    so far), no `previous_response_id`."""
    from app.core.playground.turns import call_items, history_messages, user_message

    sent = {name: value for name, value in body.items() if name != "previous_response_id"}
    history = [
        *history_messages(earlier),
        user_message(turn.prompt, turn.attachments),
        *call_items(turn.calls),
    ]
    return cast("ResponseCreateParams", {**sent, "input": history})
