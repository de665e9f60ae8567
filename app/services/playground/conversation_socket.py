"""The Playground conversation's socket in WebSocket mode: one per conversation, made with its first request
and closed when another conversation opens or the profile changes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from app.core.playground.socket_channel import SocketChannel


class ConversationSocket:
    """Holds the open conversation's SocketChannel, or None before its first request."""

    def __init__(self, session: ConsoleSession) -> None:
        self.session = session
        self._channel: SocketChannel | None = None
        session.client_changed.connect(self.close)  # another profile: another socket

    def channel(self) -> SocketChannel | None:
        """The conversation's socket when the profile uses WebSocket mode (made with its first request)."""
        profile = self.session.profile
        if profile is None or not profile.websocket_mode:
            return None
        if self._channel is None:
            from app.core.playground.socket_channel import SocketChannel

            self._channel = SocketChannel()
        return self._channel

    def close(self) -> None:
        """One socket per conversation: the next request of another one opens its own."""
        channel, self._channel = self._channel, None
        if channel is not None:
            self.session.tasks.start(f"playground.socket.close.{id(channel)}", channel.aclose())
