"""A one-line label that never asks for more width than its row gives it: a long text (a Proxy URL being
typed) is elided in the middle instead of widening the form around it, and `text()` stays the whole of it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """Shows as much of its text as fits, "…" in the middle; the whole text is `text()`."""

    def __init__(self, parent: QWidget | None = None, objectName: str = "") -> None:
        super().__init__(parent)
        self.setObjectName(objectName)
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Ignored: the layout gives it the row's width and takes no width from its text.
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._whole = ""

    def setText(self, text: str) -> None:
        self._whole = text
        self._elide()

    def text(self) -> str:
        return self._whole

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._whole, Qt.TextElideMode.ElideMiddle, max(1, self.width()))
        super().setText(shown if self.width() > 1 else self._whole)
