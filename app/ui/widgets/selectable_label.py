"""Plain, wrapped text the person can select with the mouse, laid out as a plain label until they point at it.

A QLabel with text selection lays its text out through a QTextDocument, and QLabel lays that document out
again (twice) at every heightForWidth call a layout makes. On a reopened 200-turn conversation with function
calls, the five selectable labels a finished turn carries (its message, and each call's title, arguments,
verdict and output) cost ~100 ms of a ~290 ms reopen (tests/perf/bench_functions, A/B in one session). Here
selection is switched on when the mouse first enters the label, before any press or right-click reaches it,
or when code selects part of the text (the find bar); a right-click comes after both. The height for a width is the same either way, so
nothing moves when it switches (tests/gui/test_selectable_label.py).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QEnterEvent, QFont, QMouseEvent
from PySide6.QtWidgets import QLabel, QWidget

_SELECT = Qt.TextInteractionFlag.TextSelectableByMouse


class SelectableLabel(QLabel):
    """The model's or the person's text (never markup): wrapped, and selectable once pointed at."""

    def __init__(
        self, text: str = "", name: str = "", font: QFont | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        if name:
            self.setObjectName(name)
        if font is not None:
            self.setFont(font)
        self.setText(text)

    @property
    def selectable(self) -> bool:
        return bool(self.textInteractionFlags() & _SELECT)

    def make_selectable(self) -> None:
        if not self.selectable:
            self.setTextInteractionFlags(_SELECT)

    def setSelection(self, start: int, length: int) -> None:
        self.make_selectable()  # QLabel selects only through its text control, made here
        super().setSelection(start, length)

    def enterEvent(self, event: QEnterEvent) -> None:
        self.make_selectable()
        super().enterEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.make_selectable()  # a press with no enter before it (a synthesized click)
        super().mousePressEvent(event)
