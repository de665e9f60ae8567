"""A one-line label with shorter forms of its text: it shows the longest form its width holds, and never
gets narrower than its shortest form, so a figure is shortened, never cut or squeezed to nothing."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from .flow_layout import FlowLayout


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
        self._beside: tuple[QWidget, QWidget] | None = None

    def set_forms(self, forms: Sequence[str]) -> None:
        self._forms = list(forms) or [""]
        self.updateGeometry()
        self._choose()
        self._give_way()

    def give_way_to(self, neighbour: QWidget, row: QWidget) -> None:
        """In `row` beside `neighbour` (a flow of controls that wraps when narrowed): take only the width the
        neighbour leaves on one line, down to the shortest form, so a form shortens before a control wraps."""
        self._beside = (neighbour, row)
        row.installEventFilter(self)
        self._give_way()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._give_way()
        return False

    def _give_way(self) -> None:
        if self._beside is None:
            return
        neighbour, row = self._beside
        width = row.width()
        layout = row.layout()
        if layout is not None:  # the row's own margins, and the spacing between the neighbour and this label
            margins = layout.contentsMargins()
            width -= margins.left() + margins.right() + max(0, layout.spacing()) + 2
        least, whole = self.minimumSizeHint().width(), self.sizeHint().width()
        room = width - neighbour.sizeHint().width()
        flow = neighbour.layout()
        if room < least and isinstance(flow, FlowLayout):
            # The controls wrap whatever it takes: onto two lines, not three, beside a longer form.
            room = width - flow.width_for_lines(2)
        self.setMaximumWidth(max(least, min(room, whole)))

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
