"""A one-line label with shorter forms of its text: it shows the longest form its width holds, and never
gets narrower than its shortest form, so a figure is shortened, never cut or squeezed to nothing."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class FittingLabel(QLabel):
    """`set_forms` gives the text, longest form first; `text()` is that whole form, `shown_text()` the one
    drawn. The tooltip is the caller's (the whole figure, where a shorter form leaves some out)."""

    def __init__(self, parent: QWidget | None = None, objectName: str = "") -> None:
        super().__init__(parent)
        self.setObjectName(objectName)
        self.setTextFormat(Qt.TextFormat.PlainText)
        # Preferred: it asks for its longest form and gives way down to its shortest (minimumSizeHint).
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._forms: list[str] = [""]

    def set_forms(self, forms: Sequence[str]) -> None:
        self._forms = list(forms) or [""]
        self.updateGeometry()
        self._choose()

    def text(self) -> str:
        return self._forms[0]

    def shown_text(self) -> str:
        return super().text()

    def _advance(self, text: str) -> int:
        margins = self.contentsMargins()
        return self.fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() + 2

    def sizeHint(self) -> QSize:
        return QSize(self._advance(self._forms[0]), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self._advance(form) for form in self._forms), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._choose()

    def _choose(self) -> None:
        fitting = (form for form in self._forms if self._advance(form) <= self.width())
        super().setText(next(fitting, self._forms[-1]))
