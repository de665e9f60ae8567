"""The Playground's saved conversations as a service: the store's writes and reads, with a signal on change.

File I/O stays here (and in the Qt-free store); the sidebar only draws what this service gives it.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.common.fileio import write_atomically
from app.common.sqlite_rescue import set_aside_if_damaged
from app.core.playground.conversation_store import (
    Conversation,
    ConversationStore,
    ConversationSummary,
    StoredTurn,
    title_from,
)
from app.core.playground.export import as_json, as_markdown
from app.core.playground.files import CONVERSATIONS_FILE
from app.core.playground.status import RUNNING, TurnStatus
from app.services.playground.service import PlaygroundService
from app.services.session.messages import MessageBus

if TYPE_CHECKING:  # a turn's modules load with the first turn saved or opened, not with the launch
    from app.api.wire import Response
    from app.core.playground.turns import Turn

log = logging.getLogger(__name__)
FILE_NAME = CONVERSATIONS_FILE


class ConversationsService(QObject):
    changed = Signal()  # the list of conversations changed (a rename, a delete): read it again
    saved = Signal(str)  # one conversation was started or had a turn saved: its row alone changed

    def __init__(self, data_dir: Path, bus: MessageBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bus = bus
        self.path = data_dir / FILE_NAME
        self._store: ConversationStore | None = None

    @property
    def store(self) -> ConversationStore:
        """Opened on first use: the window's first frame does not wait for SQLite."""
        if self._store is None:
            if (aside := set_aside_if_damaged(self.path)) is not None:
                self.bus.error(aside.explain("The saved conversations file", "the list starts empty"))
            self._store = ConversationStore(self.path)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def summaries(
        self, query: str = "", limit: int = 500, after: ConversationSummary | None = None
    ) -> list[ConversationSummary]:
        if self._store is None and not self.path.exists():
            # Nothing saved yet: an empty list, without making the file now. Making it (its schema, its
            # write-ahead log) syncs to disk several times, 10-40 ms of a first launch; the first save makes it.
            return []
        try:
            return self.store.summaries(query, limit, after)
        except sqlite3.Error as error:
            self.bus.error(f"The saved conversations could not be read: {error}.")
            return []

    def start(
        self,
        title: str,
        model: str,
        settings: dict[str, Any] | None = None,
        first: tuple[int, StoredTurn] | None = None,
    ) -> str | None:
        """A new conversation, with the turn that started it (`first`: its position and turn) if given."""
        try:
            conversation_id = self.store.create(title, model, settings, first)
        except sqlite3.Error as error:
            self.bus.error(f"The conversation could not be saved: {error}.")
            return None
        self.saved.emit(conversation_id)
        return conversation_id

    def summary(self, conversation_id: str) -> ConversationSummary | None:
        try:
            return self.store.summary(conversation_id)
        except sqlite3.Error as error:
            self.bus.error(f"The saved conversations could not be read: {error}.")
            return None

    def save_turn(self, conversation_id: str, position: int, turn: StoredTurn, newest: bool = False) -> None:
        try:
            self.store.save_turn(conversation_id, position, turn, newest)
        except sqlite3.Error as error:
            self.bus.error(f"The turn could not be saved: {error}.")
            return
        self.saved.emit(conversation_id)

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
            write_atomically(
                path, text, make_folder=False
            )  # private (0600), and a failed export leaves an earlier file whole
        except OSError as error:
            self.bus.error(f"Could not write {path}: {error.strerror or error}.")
            return False
        except UnicodeEncodeError:
            self.bus.error(f"Could not write {path}: the conversation holds text that is not valid UTF-8.")
            return False
        self.bus.info(f"Exported “{conversation.summary.title}” to {path}.")
        return True


def stored_turn(turn: Turn) -> StoredTurn:
    """What is kept of a turn: the exchange, its chain id, the options it was sent with (so it can be sent
    again, on another model), and its figures; never an image's bytes."""
    from app.core.playground.turn_record import sent_options, shown_again

    figures = turn.figures
    return StoredTurn(
        prompt=turn.prompt,
        answer=turn.text,
        model=turn.model,
        status=str(turn.status),
        response_id=turn.response_id,
        error=turn.error,
        details={
            "attachments": [attachment.label for attachment in turn.attachments],
            "chain_on_server": turn.chain_on_server,
            "options": sent_options(turn.request_body),
            "input_tokens": figures.input_tokens,
            "output_tokens": figures.output_tokens,
            "cached_tokens": figures.cached_tokens,
            "reasoning_tokens": figures.reasoning_tokens,
            "time_to_first_token": figures.time_to_first_token,
            "duration": figures.duration,
            **shown_again(turn),
            "held_back": figures.held_back,
            "server": turn.server,  # the profile whose server holds its response: where it chains
        },
    )


def restored_turn(stored: StoredTurn) -> Turn:
    """A saved turn shown again; its response id lets the next turn chain on the server from it."""
    from app.core.playground.turn_record import restore_shown
    from app.core.playground.turns import Turn

    details = stored.details
    try:
        status = TurnStatus(stored.status)
    except ValueError:
        status = TurnStatus.FAILED
    if status in (TurnStatus.PENDING, TurnStatus.STREAMING, TurnStatus.WAITING):
        status = TurnStatus.STOPPED  # the console quit while it streamed
    turn = Turn(
        prompt=stored.prompt,
        attachments=[],
        model=stored.model,
        chain_on_server=bool(details.get("chain_on_server", True)),
        text=stored.answer,
        status=status,
        error=stored.error,
        response=_chain_point(stored, status) if stored.response_id else None,
        server=str(details.get("server") or ""),
    )
    turn.figures.input_tokens = int(details.get("input_tokens") or 0)
    turn.figures.output_tokens = int(details.get("output_tokens") or 0)
    turn.figures.total_tokens = turn.figures.input_tokens + turn.figures.output_tokens
    turn.figures.cached_tokens = int(details.get("cached_tokens") or 0)
    turn.figures.reasoning_tokens = int(details.get("reasoning_tokens") or 0)
    turn.figures.time_to_first_token = details.get("time_to_first_token")
    turn.figures.duration = details.get("duration")
    restore_shown(turn, details)
    turn.figures.held_back_saved = details.get("held_back") is True
    return turn


def _chain_point(stored: StoredTurn, status: TurnStatus) -> Response:
    """The response a saved turn chains from: its id (pydantic's wire models are imported here, with the first
    saved turn that has one, not with the launch)."""
    from app.api.wire import Response

    return Response(id=stored.response_id or "", status=str(status), model=stored.model)


class ConversationKeeper(QObject):
    """Saves the Playground's turns as they finish, and opens saved conversations in it."""

    opened = Signal(str)  # the conversation now shown ("" for a new one)
    started = Signal(str)  # the new conversation shown was saved under this id (then `opened` with it)

    def __init__(
        self,
        playground: PlaygroundService,
        conversations: ConversationsService,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.playground = playground
        self.conversations = conversations
        self.current_id: str | None = None
        # Turns still running when their conversation was left, with its id (None: not saved yet); each is
        # saved there when its run ends (`turn_left`).
        self._left: list[tuple[Turn, str | None]] = []
        # Only a turn whose run ended is saved: a turn shown again (`turn_shown`: an edit further down, a
        # reopened conversation) is in the store as it is.
        playground.turn_finished.connect(self._save)
        playground.turn_left.connect(self._save_left)

    def _save(self, index: int) -> None:
        if index >= len(self.playground.turns):
            return
        from app.core.playground.turn_record import sent_options

        turn = self.playground.turns[index]
        # The conversation's settings: those its newest turn was sent with (a reopened turn has none to give).
        settings = sent_options(turn.request_body) if turn.request_body else None
        if self.current_id is None:  # its first turn: the conversation and the turn in one write
            first = (index, stored_turn(turn))
            self.current_id = self.conversations.start(title_from(turn.prompt), turn.model, settings, first)
            if self.current_id is not None:
                self.started.emit(self.current_id)
                self.opened.emit(self.current_id)
            return
        newest = index == len(self.playground.turns) - 1
        self.conversations.save_turn(self.current_id, index, stored_turn(turn), newest)
        if newest and settings:
            self.conversations.save_settings(self.current_id, settings)

    def _save_left(self, turn: Turn, index: int) -> None:
        """A turn whose conversation was left before its run ended: saved there, the one shown untouched."""
        owner = next((owner for left, owner in self._left if left is turn), "")
        self._left = [(left, owner) for left, owner in self._left if left is not turn]
        if owner == "":
            return  # dropped (an edit from an earlier message), not left: nothing of it is kept
        if owner is None:  # its conversation's first turn: the conversation starts with it, not opened
            self.conversations.start(title_from(turn.prompt), turn.model, None, (index, stored_turn(turn)))
        else:
            self.conversations.save_turn(owner, index, stored_turn(turn), newest=True)

    def _leave(self) -> None:
        """Before another conversation is shown: the turns still running are remembered with this one."""
        self._left += [(turn, self.current_id) for turn in self.playground.turns if turn.status in RUNNING]

    def new(self) -> None:
        self._leave()
        # A turn waiting for function outputs ends (and is saved) in its own conversation before this one
        # is left: ended after, it would be saved under the next conversation's id.
        self.playground.stop()
        self.current_id = None
        self.playground.new_conversation()
        self.opened.emit("")

    def open(self, conversation_id: str) -> bool:
        conversation = self.conversations.load(conversation_id)
        if conversation is None:
            return False
        self._leave()
        self.playground.stop()  # as in `new`
        self.current_id = conversation_id
        self.playground.restore([restored_turn(turn) for turn in conversation.turns])
        self.opened.emit(conversation_id)
        return True
