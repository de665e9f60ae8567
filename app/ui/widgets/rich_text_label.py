"""A word-wrapped label of rich text that measures its height at a width once, not at every layout pass.

QLabel lays its rich text out again at each width a layout asks its height for, and the text's document then
asks for the label to be repainted: a scroll area around it asks at three widths each time the page inside is
laid out again, so a label that never changes is repainted whenever anything else on the page moves.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QLabel, QWidget

KEPT_WIDTHS = 8  # a resize asks at new widths: the heights kept are those of the last few


class RichTextLabel(QLabel):
    """A QLabel whose height for each width is kept until its text, font, style or margins change."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self._heights: dict[int, int] = {}

    def setText(self, text: str) -> None:
        self._heights.clear()
        super().setText(text)

    def heightForWidth(self, width: int) -> int:
        height = self._heights.get(width)
        if height is None:
            if len(self._heights) >= KEPT_WIDTHS:
                self._heights.clear()
            height = self._heights[width] = super().heightForWidth(width)
        return height

    def changeEvent(self, event: QEvent) -> None:
        self._heights.clear()  # a font, a style sheet or margins make other heights
        super().changeEvent(event)
