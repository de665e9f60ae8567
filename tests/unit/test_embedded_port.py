"""The embedded sandbox keeps its port across launches, and moves only when another program holds it."""

from __future__ import annotations

import socket
from pathlib import Path

from app.core.embedded import EmbeddedSandbox


def test_the_port_chosen_once_is_kept_and_moves_only_when_taken(tmp_path: Path) -> None:
    remembered: list[int] = []
    first = EmbeddedSandbox(tmp_path / "sandbox", remember_port=remembered.append)
    port = first.start().port
    first.stop()
    assert remembered == [port]

    again = EmbeddedSandbox(tmp_path / "sandbox", port=port, remember_port=remembered.append)
    assert again.start().port == port and again.moved_from is None
    again.stop()
    assert remembered == [port]  # nothing new to remember

    with socket.socket() as holder:  # another program took the port meanwhile
        holder.bind(("127.0.0.1", port))
        holder.listen()
        moved = EmbeddedSandbox(tmp_path / "sandbox", port=port, remember_port=remembered.append)
        new_port = moved.start().port
        moved.stop()
    assert new_port != port and moved.moved_from == port and remembered == [port, new_port]
