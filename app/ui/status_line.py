"""The window's status bar, whose passing message wraps onto a second line rather than being cut: at 800 px a
message such as a connection's detail ran past the window's edge (QStatusBar paints it on one line)."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QMainWindow, QStatusBar, QWidget


class StatusBar(QStatusBar):
    """showMessage and currentMessage as QStatusBar's, the message shown in a word-wrapping label."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.line = QLabel(objectName="status_message")
        self.line.setWordWrap(True)
        self.addWidget(self.line, 1)
        self._timer = QTimer(self, singleShot=True)
        self._timer.timeout.connect(self.clearMessage)

    @classmethod
    def of_window(cls, window: QMainWindow) -> StatusBar:
        """A new bar, `window`'s. QMainWindow.setStatusBar makes the window's default bar first and leaves it to
        the event loop to delete; deleted then, the corner it has (hidden, never shown) is repainted, the tool
        bar and the menu bar under it with it, at the loop's first turn: it goes here, before any frame."""
        bar = cls()
        window.setStatusBar(bar)
        for child in window.children():
            if isinstance(child, QStatusBar) and child is not bar:
                shiboken6.delete(child)
        return bar

    def settle(self) -> None:
        """After the first frame (the `Qt` namespace's enums cost a launch ~50 ms before it): messages quote
        servers and files, so they are plain text, never markup; and a person can select one to copy it."""
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QSizePolicy

        # Any width: a long word (a URL) wraps or is cut rather than widening the window's minimum (twice the
        # scale on an 800x600 screen leaves 400 points); the policy keeps the word wrap's height for width.
        policy = self.line.sizePolicy()
        policy.setHorizontalPolicy(QSizePolicy.Policy.Ignored)
        self.line.setSizePolicy(policy)
        self.line.setTextFormat(Qt.TextFormat.PlainText)
        self.line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        self.line.setText(text)
        if timeout:
            self._timer.start(timeout)
        else:
            self._timer.stop()

    def currentMessage(self) -> str:
        return str(self.line.text())

    def clearMessage(self) -> None:
        self._timer.stop()
        self.line.clear()
