"""The line above the add form while the Playground waits for an address to be allowed after a 403.

When both lists refused, the second list is not opened by itself once the first admits the address: the tab
stays on the list the person is looking at, and this line says which list still refuses and offers to open it.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

from app.ui.colours import Ink, css

from .scope_bar import plain_label


class WaitingBar(QWidget):
    """What the Playground waits for in the Security tab, and the button to the next list that refuses."""

    next_clicked = Signal()  # the person asks for the next list that still refuses the address

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="allow_waiting_bar")
        self.label = plain_label("allow_waiting")
        self.label.setStyleSheet(css(Ink.INFO))
        self.next_button = QPushButton(objectName="allow_next_list")
        self.next_button.clicked.connect(self.next_clicked)
        self.next_button.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.next_button)
        self.hide()

    def text(self) -> str:
        return self.label.text()

    def show_waiting(self, text: str, next_list: str = "") -> None:
        """`text` ("" hides the bar); `next_list`, the words of the button that opens the next list, if any."""
        self.label.setText(text)
        self.next_button.setText(next_list)
        self.next_button.setAccessibleName(next_list)
        self.next_button.setVisible(bool(next_list))
        self.setVisible(bool(text))
