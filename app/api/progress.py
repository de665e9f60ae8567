"""How far a request got before it failed, read from httpcore's `trace` extension: connecting, the TLS
handshake with an https:// proxy, the proxy's answer to CONNECT, the server's TLS handshake, the request
written. An error message names the part that stopped (a proxy that never answers CONNECT is not a server
that never answers), and the wait for a tunnel is bounded on its own: a stream may wait minutes for its
first byte, a proxy's answer to CONNECT comes in seconds or not at all."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import Enum
from typing import Any


class Phase(Enum):
    CONNECTING = "connecting"  # to the server, or to the proxy (TCP)
    PROXY_TLS = "proxy_tls"  # the TLS handshake with an https:// proxy
    TUNNEL = "tunnel"  # CONNECT sent; the proxy has not answered it yet
    SERVER_TLS = "server_tls"  # the TLS handshake with the server (inside the tunnel, or direct)
    SENDING = "sending"  # the request is being written
    SENT = "sent"  # written whole: the server (or a buffering proxy) works on it
    ANSWERED = "answered"  # the answer's head came


class Progress:
    """An httpcore trace callback that keeps the request's `phase`; `restart()` before each attempt.

    `on_sent` is called when the request itself (never the proxy's CONNECT) is written whole. Within
    `bound(scope, seconds)`, the proxy's answer to CONNECT must come within `seconds`: the scope's deadline
    is brought forward while CONNECT waits, and put back once the tunnel is open."""

    def __init__(self, proxied: bool, on_sent: Callable[[], None] | None = None) -> None:
        self.proxied = proxied
        self.on_sent = on_sent
        self.phase = Phase.CONNECTING
        self._scope: asyncio.Timeout | None = None
        self._tunnel_seconds = 0.0
        self._deadline: float | None = None

    def restart(self) -> None:
        self.phase = Phase.CONNECTING

    def bound(self, scope: asyncio.Timeout, tunnel_seconds: float) -> None:
        self._scope, self._tunnel_seconds, self._deadline = scope, tunnel_seconds, scope.when()

    async def __call__(self, event: str, info: dict[str, Any]) -> None:
        _layer, _, step = event.partition(".")
        if event == "connection.start_tls.started":
            self.phase = Phase.PROXY_TLS if self.proxied else Phase.SERVER_TLS
        elif event == "proxy.start_tls.started":
            self.phase = Phase.SERVER_TLS
        elif step == "send_request_headers.started":
            # Only a `.started` event carries the request: the ones after are of the same request.
            connect = getattr(info.get("request"), "method", b"") == b"CONNECT"
            self.phase = Phase.TUNNEL if connect else Phase.SENDING
            if connect:
                self._hold_tunnel(True)
        elif step == "send_request_body.complete" and self.phase is Phase.SENDING:
            self.phase = Phase.SENT
            if self.on_sent is not None:
                self.on_sent()
        elif step == "receive_response_headers.complete":
            if self.phase is Phase.TUNNEL:
                self._hold_tunnel(False)
                self.phase = Phase.SERVER_TLS  # the tunnel is open (or the proxy refused it: ProxyError)
            else:
                self.phase = Phase.ANSWERED

    def _hold_tunnel(self, waiting: bool) -> None:
        scope, deadline = self._scope, self._deadline
        if scope is None or deadline is None:
            return
        if waiting:
            scope.reschedule(min(deadline, asyncio.get_running_loop().time() + self._tunnel_seconds))
        else:
            scope.reschedule(deadline)
