"""Value boxes that take the wheel only once focused: the wheel passing over a scrolled pane scrolls it."""

from __future__ import annotations

from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QSpinBox


# A value changes under the wheel only once the person has clicked into it: the wheel passing over the
# options pane while scrolling it must scroll the pane, not change the temperature (an ignored wheel event
# goes on to the pane). Clicking or tabbing in still gives the box the wheel.
class DecimalBox(QDoubleSpinBox):
    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()


class WholeBox(QSpinBox):
    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()


class ChoiceBox(QComboBox):
    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():
            super().wheelEvent(event)
        else:
            event.ignore()
