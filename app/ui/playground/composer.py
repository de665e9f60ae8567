"""Where a message is written: the message box (pasting an image attaches it), Send and Stop."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

MESSAGE_HEIGHT = 110  # the message box's height in a tall window (about six lines)
MESSAGE_SHARE = 8  # in a short one, an eighth of the tab's height, at least three lines: the rest is the
# conversation's (at 800x600 a six-line box left it ~130 px beside the Functions pane)


class MessageEdit(QPlainTextEdit):
    """The message box; pasting an image attaches it."""

    image_pasted = Signal(QImage)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        if source.hasImage():
            self.image_pasted.emit(QImage(source.imageData()))
        else:
            super().insertFromMimeData(source)


class Composer(QWidget):
    send_clicked = Signal()
    stop_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.message = MessageEdit(objectName="message_edit")
        self.message.setPlaceholderText("Message (Ctrl+Enter to send, Esc to stop; paste or drop images)")
        self.message.setMaximumHeight(MESSAGE_HEIGHT)
        self.message.setAccessibleName("Message")
        # Tab moves on to Send, as in every other field, so Send is reached without the mouse; a tab character
        # is rare in a prompt, and pasting one still works.
        self.message.setTabChangesFocus(True)
        self.send_button = QPushButton("Send", objectName="send")
        self.send_button.clicked.connect(self.send_clicked)
        self.stop_button = QPushButton("Stop", objectName="stop", enabled=False)
        self.stop_button.clicked.connect(self.stop_clicked)
        self._streaming = False
        self._held = ""  # why Send waits (a stored prompt's variable left empty); "" when it need not
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.message, 1)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        row.addLayout(buttons)

    def fit_to(self, tab_height: int) -> None:
        """The message box's height for a tab `tab_height` tall."""
        lines = 3 * self.message.fontMetrics().lineSpacing() + 12
        self.message.setMaximumHeight(max(lines, min(MESSAGE_HEIGHT, tab_height // MESSAGE_SHARE)))

    def set_streaming(self, streaming: bool) -> None:
        self._streaming = streaming
        self.send_button.setEnabled(not streaming and not self._held)
        self.stop_button.setEnabled(streaming)

    def hold_send(self, reason: str) -> None:
        """Keep Send disabled while `reason` is not "" (its tooltip says why)."""
        self._held = reason
        self.send_button.setToolTip(reason)
        self.send_button.setEnabled(not self._streaming and not reason)
