"""The Playground's saved conversations as a service: the store's writes and reads, with a signal on change.

File I/O stays here (and in the Qt-free store); the sidebar only draws what this service gives it.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from .conversation_store import (
    Conversation,
    ConversationStore,
    ConversationSummary,
    StoredTurn,
    as_json,
    as_markdown,
)
from .messages import MessageBus

log = logging.getLogger(__name__)
FILE_NAME = "conversations.sqlite3"


class ConversationsService(QObject):
    changed = Signal()  # the list of conversations changed (a new one, a rename, a delete, a turn saved)

    def __init__(self, data_dir: Path, bus: MessageBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bus = bus
        self.path = data_dir / FILE_NAME
        self._store: ConversationStore | None = None

    @property
    def store(self) -> ConversationStore:
        """Opened on first use: the window's first frame does not wait for SQLite."""
        if self._store is None:
            self._store = ConversationStore(self.path)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def summaries(self, query: str = "") -> list[ConversationSummary]:
        try:
            return self.store.summaries(query)
        except sqlite3.Error as error:
            self.bus.error(f"The saved conversations could not be read: {error}.")
            return []

    def start(self, title: str, model: str, settings: dict[str, Any] | None = None) -> str | None:
        try:
            conversation_id = self.store.create(title, model, settings)
        except sqlite3.Error as error:
            self.bus.error(f"The conversation could not be saved: {error}.")
            return None
        self.changed.emit()
        return conversation_id

    def save_turn(self, conversation_id: str, position: int, turn: StoredTurn) -> None:
        try:
            self.store.save_turn(conversation_id, position, turn)
        except sqlite3.Error as error:
            self.bus.error(f"The turn could not be saved: {error}.")
            return
        self.changed.emit()

    def save_settings(self, conversation_id: str, settings: dict[str, Any]) -> None:
        try:
            self.store.update_settings(conversation_id, settings)
        except sqlite3.Error as error:
            log.warning("conversation settings not saved: %s", error)

    def load(self, conversation_id: str) -> Conversation | None:
        try:
            return self.store.load(conversation_id)
        except sqlite3.Error as error:
            self.bus.error(f"The conversation could not be read: {error}.")
            return None

    def rename(self, conversation_id: str, title: str) -> None:
        self.store.rename(conversation_id, title)
        self.changed.emit()

    def delete(self, conversation_id: str) -> None:
        self.store.delete(conversation_id)
        self.changed.emit()

    def export(self, conversation_id: str, path: Path) -> bool:
        """Markdown for .md, JSON otherwise; says where it went, or why not."""
        conversation = self.load(conversation_id)
        if conversation is None:
            return False
        text = as_markdown(conversation) if path.suffix.lower() == ".md" else as_json(conversation)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            self.bus.error(f"Could not write {path}: {error.strerror or error}.")
            return False
        self.bus.info(f"Exported “{conversation.summary.title}” to {path}.")
        return True
