"""Compare mode as a service: finds what a conversation sent, re-runs it on another model (with
app.core.playground.compare) and saves the re-run as a conversation of its own, turn by turn, as the
Playground saves its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.playground.compare import (
    CompareRow,
    CompareRun,
    CompareSource,
    SourceTurn,
    compare_title,
    plan_rows,
)
from app.core.playground.turn_record import sent_options
from app.core.playground.turn_runner import report_connection
from app.services.playground.conversations import ConversationKeeper, restored_turn, stored_turn
from app.services.playground.service import FLUSH_INTERVAL_MS

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.core.playground.socket_channel import SocketChannel
    from app.services.session.session import ConsoleSession

TASK = "compare.run"


class CompareJob(QObject):
    """One comparison: its rows, the conversation it is saved as, and signals for the window showing it."""

    turn_started = Signal(int)  # row index
    text_arrived = Signal(int, str)  # row index, the text since the last flush
    turn_updated = Signal(int)
    turn_finished = Signal(int)  # run to its end, or skipped
    done = Signal()

    def __init__(
        self,
        rows: list[CompareRow],
        model: str,
        conversation_id: str,
        keeper: ConversationKeeper,
        channel: SocketChannel | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.rows = rows
        self.model = model
        self.conversation_id = conversation_id
        self.conversations = keeper.conversations
        self.running = True
        self._saved = 0
        self.channel = channel
        self.runner = CompareRun(rows, model, self, channel)
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_INTERVAL_MS)
        self._timer.timeout.connect(self.runner.flush)

    async def run(self, client: ServiceClient | None) -> None:
        self._timer.start()
        try:
            await self.runner.run(client)
        finally:
            self._timer.stop()
            if self.channel is not None:  # the re-run's socket ends with it
                await self.channel.aclose()

    def finish(self) -> None:
        """The task is over, however it ended (even cancelled before its first step)."""
        for index, row in enumerate(self.rows):
            if row.rerun is None and not row.skipped:
                row.skipped = "Not run: the comparison was stopped."
                self.turn_finished.emit(index)
        self.running = False
        self.done.emit()

    # -- CompareListener ----------------------------------------------------------------------------

    def row_started(self, index: int) -> None:
        self.turn_started.emit(index)

    def row_text(self, index: int, chunk: str) -> None:
        self.text_arrived.emit(index, chunk)

    def row_updated(self, index: int) -> None:
        self.turn_updated.emit(index)

    def row_finished(self, index: int) -> None:
        rerun = self.rows[index].rerun
        if rerun is not None:  # a stopped or failed turn is saved too, as the Playground saves it
            self.conversations.save_turn(self.conversation_id, self._saved, stored_turn(rerun))
            self._saved += 1
        self.turn_finished.emit(index)


class CompareService(QObject):
    def __init__(self, session: ConsoleSession, keeper: ConversationKeeper, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.keeper = keeper
        self.job: CompareJob | None = None

    def source(self, conversation_id: str | None = None) -> CompareSource | None:
        """What a saved conversation (the open one by default) sent, turn by turn. The open conversation's
        turns of this session still hold their images; a reopened one has none (a saved conversation keeps
        no image data)."""
        conversation_id = conversation_id or self.keeper.current_id
        if not conversation_id:
            return None
        saved = self.keeper.conversations.load(conversation_id)
        if saved is None or not saved.turns:
            return None
        live = self.keeper.playground.turns if conversation_id == self.keeper.current_id else []
        turns = []
        for position, stored in enumerate(saved.turns):
            current = live[position] if position < len(live) else None
            if current is not None and current.prompt != stored.prompt:
                current = None
            original = current or restored_turn(stored)
            attachments = list(current.attachments) if current is not None else []
            labels = stored.details.get("attachments")
            missing = [str(label) for label in labels] if isinstance(labels, list) and not attachments else []
            kept = stored.details.get("options")
            if current is not None and current.request_body:
                options = sent_options(current.request_body)
            else:
                options = dict(kept) if isinstance(kept, dict) else {}
            turns.append(SourceTurn(original, attachments, missing, options))
        return CompareSource(conversation_id, saved.summary.title, saved.summary.model, turns)

    def start(self, source: CompareSource, model: str) -> CompareJob | None:
        """Re-run `source` on `model` as a new saved conversation; a comparison already running stops."""
        self.stop()
        title = compare_title(source.title, model)
        conversation_id = self.keeper.conversations.start(
            title, model, {"compare_of": source.conversation_id}
        )
        if conversation_id is None:
            return None  # the store said why, on the message bus
        job = self.job = CompareJob(
            plan_rows(source, model), model, conversation_id, self.keeper, self._channel(), self
        )
        job.turn_finished.connect(lambda index: self._follow_connection(job, index))
        task = self.session.tasks.start(TASK, job.run(self.session.client))
        task.add_done_callback(lambda _task: job.finish())
        return job

    def _channel(self) -> SocketChannel | None:
        """A socket of the re-run's own when the profile uses WebSocket mode, as the Playground sends."""
        profile = self.session.profile
        if profile is None or not profile.websocket_mode:
            return None
        from app.core.playground.socket_channel import SocketChannel

        return SocketChannel()

    def _follow_connection(self, job: CompareJob, index: int) -> None:
        """The toolbar follows a re-run as it follows the Playground's turns."""
        rerun = job.rows[index].rerun
        if rerun is not None:
            report_connection(self.session, rerun)

    def stop(self) -> bool:
        return self.session.tasks.cancel(TASK)

    @property
    def running(self) -> bool:
        return self.session.tasks.running(TASK)
