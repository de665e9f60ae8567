"""One message bus: deep code posts here; the main window shows it in the status bar or a notice."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class MessageLevel(StrEnum):
    INFO = "info"  # the status bar
    WARNING = "warning"  # the status bar and the log
    ERROR = "error"  # the status bar, a notice the person closes, and the log


@dataclass(frozen=True)
class Message:
    """A sentence for the person (the status bar, a notice), and how much it matters."""

    level: MessageLevel
    text: str


class MessageBus(QObject):
    posted = Signal(Message)

    def info(self, text: str) -> None:
        self.posted.emit(Message(MessageLevel.INFO, text))

    def warning(self, text: str) -> None:
        log.warning("%s", text)
        self.posted.emit(Message(MessageLevel.WARNING, text))

    def error(self, text: str) -> None:
        log.error("%s", text)
        self.posted.emit(Message(MessageLevel.ERROR, text))
