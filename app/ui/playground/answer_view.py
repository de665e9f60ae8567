"""The streamed answer's text view, and the sentences a turn shows about itself (figures, schema verdict)."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from app.common.jsonschema_check import mismatches
from app.core.playground.cost import PriceBook, cost_breakdown, cost_text, turn_cost
from app.core.playground.turns import Turn

# Qt lays out a whole paragraph on every change: appending to one 20,000-word paragraph costs ~100 ms a
# time (measured). While streaming, display blocks are capped by breaking at whitespace; the text is not.
SOFT_BLOCK_CHARS = 1500
# Past this size a one-shot markdown render stalls the UI (~100 ms at 130 KB); it is offered instead.
MARKDOWN_LIMIT = 40_000


class AnswerView(QTextBrowser):
    """A read-only text view as tall as its content, so the conversation scrolls as one page."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.streaming = True
        self.document().documentLayout().documentSizeChanged.connect(self._fit)
        self._fit()

    def _fit(self, *_: Any) -> None:
        if self.document().isEmpty():  # no strip before the first text (shown, so text needs no show())
            height = 0
        else:
            height = int(self.document().size().height()) + 8
            if self.streaming:
                # Each height change relayouts the whole conversation: while streaming, grow in steps.
                height = -(-height // 240) * 240
            height = max(24, height)
        if height != self.height():
            self.setFixedHeight(height)

    def done_streaming(self) -> None:
        self.streaming = False
        self._fit()

    def append_plain(self, text: str) -> None:
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        block_length = cursor.block().length() - 1
        for number, piece in enumerate(text.split("\n")):
            if number:
                cursor.insertBlock()
                block_length = 0
            while block_length + len(piece) > SOFT_BLOCK_CHARS:
                room = SOFT_BLOCK_CHARS - block_length
                if room > 0:
                    cut = piece.rfind(" ", 0, room) + 1 or room
                    cursor.insertText(piece[:cut])
                    piece = piece[cut:]
                cursor.insertBlock()
                block_length = 0
            cursor.insertText(piece)
            block_length += len(piece)


def figures_text(turn: Turn, prices: PriceBook | None = None) -> str:
    """Timings, pace and tokens; with `prices`, the answer's cost after its tokens."""
    figures = turn.figures
    parts = []
    if figures.time_to_first_token is not None:
        parts.append(f"first token {figures.time_to_first_token * 1000:,.0f} ms")
    if figures.duration is not None:
        parts.append(f"{figures.duration:,.2f} s")
    if figures.held_back:
        parts.append("arrived all at once: a proxy held the stream back")
    elif figures.tokens_per_second:
        parts.append(f"{figures.tokens_per_second:,.0f} tok/s")
    if figures.total_tokens:
        cached = f" ({figures.cached_tokens:,} cached)" if figures.cached_tokens else ""
        reasoning = f" ({figures.reasoning_tokens:,} reasoning)" if figures.reasoning_tokens else ""
        parts.append(
            f"in {figures.input_tokens:,}{cached} · out {figures.output_tokens:,}{reasoning}"
            f" · total {figures.total_tokens:,}"
        )
        if cost := (cost_text(turn_cost(turn, prices)) if prices is not None else ""):
            parts.append(cost)
    return " · ".join(parts)


def cost_tooltip(turn: Turn, prices: PriceBook | None) -> str:
    """The answer's cost, broken down ("" when it used no tokens or the prices are still being read)."""
    return cost_breakdown(turn_cost(turn, prices)) if prices is not None else ""


def schema_verdict(text: str, schema: dict[str, Any]) -> tuple[bool, str]:
    try:
        value = json.loads(text)
    except ValueError as error:
        return False, f"✗ Not valid JSON: {error}"
    errors = mismatches(value, schema)
    if errors:
        first = min(errors, key=lambda mismatch: mismatch.detail)
        return False, f"✗ Does not match the schema at {first.where}: {first.message}"
    return True, "✓ Valid against the schema"
