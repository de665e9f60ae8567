"""What a turn's WebSocket did, for the inspector: each frame sent and received, timed, and notes for the
person (a reconnect, a fallback to HTTP, a new chain). The frames are the messages as they went: the key is
in the upgrade's header, never in one."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.socket_mode import Direction

FRAMES_KEPT = 5_000  # per turn: a long answer's deltas beyond this are counted, not kept


@dataclass(frozen=True)
class SocketFrame:
    """One message of a turn's socket, by when it came (seconds since the turn started)."""

    seconds: float
    direction: Direction
    text: str


@dataclass
class SocketLog:
    """A turn's socket: its frames timed from when the turn first used it, up to FRAMES_KEPT (the rest
    counted), and what the socket did that the person should know (a reconnect, a fallback, a recovery)."""

    started: float = field(default_factory=time.perf_counter)
    frames: list[SocketFrame] = field(default_factory=list)
    left_out: int = 0
    notes: list[str] = field(default_factory=list)

    def __call__(self, direction: Direction, text: str) -> None:
        if len(self.frames) < FRAMES_KEPT:
            self.frames.append(SocketFrame(time.perf_counter() - self.started, direction, text))
        else:
            self.left_out += 1


def frames_text(log: SocketLog) -> str:
    """The inspector's Frames page: each message with its time and direction (a long one shortened), then
    what the socket did."""
    arrows = {"sent": "→", "received": "←", "upgrade": "⇅"}
    lines = []
    for frame in log.frames:
        text = (
            frame.text if len(frame.text) <= 2_000 else frame.text[:2_000] + f"…({len(frame.text):,} chars)"
        )
        lines.append(f"{frame.seconds * 1000:9.1f} ms {arrows[frame.direction]} {text}")
    if log.left_out:
        lines.append(f"… {log.left_out:,} more frames, not kept")
    return "\n".join([*lines, *log.notes])
