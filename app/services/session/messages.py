"""One message bus: deep code posts here; the main window shows it in the status bar or a notice."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class MessageBus(QObject):
    posted = Signal(str, str)  # level ("info", "warning", "error"), text

    def info(self, text: str) -> None:
        self.posted.emit("info", text)

    def warning(self, text: str) -> None:
        log.warning("%s", text)
        self.posted.emit("warning", text)

    def error(self, text: str) -> None:
        log.error("%s", text)
        self.posted.emit("error", text)
