"""Runs Playground turns: builds the request, streams it, buffers deltas, keeps figures and the exchange.

Deltas are buffered and flushed on a ~30 ms timer: inserting each one as it arrives is quadratic and
stalls the UI (STACK-FACTS.md: 151 s for 20,000 deltas, against about 1 s buffered).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError, ConnectionFailed, RateLimited

if TYPE_CHECKING:  # pydantic and httpx load on the first send, not when the tab is built
    from app.api.streaming import ResponseStream
    from app.api.wire import UrlCitation

from .session import ConsoleSession
from .turns import (
    Attachment,
    ErrorKind,
    Figures,
    RequestOptions,
    TimelineEntry,
    Turn,
    TurnStatus,
    build_request,
    failure_of,
    final_status,
    redacted_body,
)

__all__ = [
    "Attachment",
    "Figures",
    "PlaygroundService",
    "RequestOptions",
    "Turn",
    "TurnDetails",
    "redacted_body",
]

FLUSH_INTERVAL_MS = 30


@dataclass(frozen=True)
class TurnDetails:
    """What a turn view shows beside the answer."""

    searches: list[str] = field(default_factory=list)
    citations: list[UrlCitation] = field(default_factory=list)
    reasoning: str = ""


class PlaygroundService(QObject):
    turn_added = Signal(int)
    text_flushed = Signal(int, str)  # turn index, the text that arrived since the last flush
    turn_updated = Signal(int)  # search, reasoning or status changed
    turn_finished = Signal(int)
    totals_changed = Signal()
    conversation_reset = Signal()

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.turns: list[Turn] = []
        self._pending: list[str] = []
        self._pending_turn = -1
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_INTERVAL_MS)
        self._timer.timeout.connect(self._flush)

    # -- requests ---------------------------------------------------------------------------------

    def build_body(
        self, prompt: str, attachments: list[Attachment], options: RequestOptions, index: int | None = None
    ) -> dict[str, Any]:
        """The body a turn at `index` (a new one by default) would send; see turns.build_request."""
        index = len(self.turns) if index is None else index
        return build_request(self.turns[:index], prompt, attachments, options).body

    def send(self, prompt: str, attachments: list[Attachment], options: RequestOptions) -> int:
        """Start a new turn; returns its index. A turn already streaming is stopped first."""
        self.stop()
        plan = build_request(self.turns, prompt, attachments, options)
        turn = Turn(
            prompt,
            list(attachments),
            options.model,
            plan.chained,
            request_body=plan.body,
            chain_note=plan.chain_note,
            schema=options.schema,
        )
        self.turns.append(turn)
        index = len(self.turns) - 1
        self.turn_added.emit(index)
        task = self.session.tasks.start("playground.stream", self._run(index))
        task.add_done_callback(lambda _task: self._never_started(index))
        return index

    def _never_started(self, index: int) -> None:
        """A turn cancelled before its task ran a single step still ends, as stopped."""
        if index < len(self.turns) and self.turns[index].status == TurnStatus.PENDING:
            self.turns[index].status = TurnStatus.STOPPED
            self.turn_finished.emit(index)

    def resend_from(self, index: int, prompt: str, options: RequestOptions) -> int:
        """Edit an earlier message (or regenerate the last answer): drop it and the turns after, send again."""
        attachments = self.turns[index].attachments if index < len(self.turns) else []
        self.stop()
        del self.turns[index:]
        self.conversation_reset.emit()
        for i in range(len(self.turns)):
            self.turn_added.emit(i)
            self.turn_finished.emit(i)
        return self.send(prompt, attachments, options)

    def restore(self, turns: list[Turn]) -> None:
        """Show a saved conversation: its turns replace the current ones, finished as they were."""
        self.stop()
        self.turns[:] = turns
        self.conversation_reset.emit()
        for index in range(len(self.turns)):
            self.turn_added.emit(index)
            self.turn_finished.emit(index)
        self.totals_changed.emit()

    def new_conversation(self) -> None:
        self.stop()
        self.turns.clear()
        self.conversation_reset.emit()
        self.totals_changed.emit()

    def stop(self) -> bool:
        return self.session.tasks.cancel("playground.stream")

    @property
    def streaming(self) -> bool:
        return self.session.tasks.running("playground.stream")

    # -- the stream -------------------------------------------------------------------------------

    async def _run(self, index: int) -> None:
        turn = self.turns[index]
        started = time.perf_counter()
        turn.status = TurnStatus.STREAMING
        self._pending_turn = index
        self._timer.start()
        try:
            await self._stream_waiting_once(index, started)
            self.session.report_unblocked()  # it went through: a blocked connection is checked again
        except asyncio.CancelledError:
            self._flush()
            turn.status = TurnStatus.STOPPED
            raise
        except ApiError as error:
            self._flush()
            self._record_error(turn, error)
        finally:
            self._timer.stop()
            turn.figures.duration = time.perf_counter() - started
            usage = turn.response.usage if turn.response is not None else None
            if usage is not None:
                turn.figures.input_tokens = usage.input_tokens
                turn.figures.output_tokens = usage.output_tokens
                turn.figures.total_tokens = usage.total_tokens
            self.turn_finished.emit(index)
            self.totals_changed.emit()
            if turn.error_kind == ErrorKind.BLOCKED:
                self.session.report_blocked(turn.source_ip)  # the toolbar follows, without Check
                self.session.tasks.start(f"playground.refusal.{index}", self._find_refusal(index, turn))

    async def _find_refusal(self, index: int, turn: Turn) -> None:
        """Which list refused the turn, read through the Admin API; the view shows it when it is known."""
        from .refusal import find_refusal

        client, profile = self.session.client, self.session.profile
        if client is None:
            return
        project_id = profile.project_id if profile is not None else None
        turn.refusal = await find_refusal(client, project_id, turn.source_ip)
        if (
            index < len(self.turns) and self.turns[index] is turn
        ):  # not dropped by an edit or a new conversation
            self.turn_updated.emit(index)

    async def _stream_waiting_once(self, index: int, started: float) -> None:
        """Stream the turn; a 429 before any text is waited out once, in view (a countdown; Stop cancels)."""
        turn = self.turns[index]
        try:
            await self._stream(index, started)
        except RateLimited as error:
            wait = error.retry_after
            if wait is None or turn.text:
                raise
            turn.status, turn.retry_after = TurnStatus.WAITING, wait
            turn.retry_at = time.monotonic() + wait
            self.turn_updated.emit(index)
            await asyncio.sleep(wait)
            turn.status, turn.retry_at = TurnStatus.STREAMING, None
            self.turn_updated.emit(index)
            await self._stream(index, started)

    async def _stream(self, index: int, started: float) -> None:
        from app.api.events import OutputItemEvent, TextDelta
        from app.api.wire import ReasoningItem, WebSearchCall

        turn = self.turns[index]
        client = self.session.client
        if client is None:
            raise ConnectionFailed("No connection: choose a profile first.")
        stream: ResponseStream = client.responses.stream(turn.request_body)
        try:
            async for event in stream:
                turn.timeline.append(TimelineEntry(event.received_at - started, event.type))
                if isinstance(event, TextDelta):
                    if turn.figures.time_to_first_token is None:
                        turn.figures.time_to_first_token = event.received_at - started
                    self._pending.append(event.delta)
                elif (
                    isinstance(event, OutputItemEvent)
                    and event.type == "response.output_item.done"
                    and isinstance(event.item, WebSearchCall | ReasoningItem)
                ):
                    self._flush()
                    turn.items.append(event.item)
                    self.turn_updated.emit(index)
        finally:
            turn.headers = stream.state.headers
            await stream.aclose()  # whatever ended the loop (Stop, a fault in it), the server hears it now
        self._flush()
        final = stream.state.response
        assert final is not None  # the stream raises when it ends without a final response
        turn.response = final
        turn.text = final.output_text or turn.text
        turn.status = final_status(final)
        if turn.status == TurnStatus.FAILED:
            turn.error = (
                final.error.message if final.error else ""
            ) or "The response failed (no reason given)."
            turn.error_kind = ErrorKind.OTHER

    @staticmethod
    def _record_error(turn: Turn, error: ApiError) -> None:
        failure = failure_of(error)
        turn.error, turn.error_kind = failure.message, failure.kind
        turn.source_ip, turn.retry_after = failure.source_ip, failure.retry_after
        if failure.headers:
            turn.headers = dict(failure.headers)
        # A stream that broke after text arrived keeps it, marked incomplete.
        turn.status = TurnStatus.INCOMPLETE if turn.text else TurnStatus.FAILED

    def _flush(self) -> None:
        if not self._pending:
            return
        chunk = "".join(self._pending)
        self._pending.clear()
        turn = self.turns[self._pending_turn]
        turn.text += chunk
        self.text_flushed.emit(self._pending_turn, chunk)

    # -- reading a turn ---------------------------------------------------------------------------

    def totals(self) -> Figures:
        total = Figures()
        for turn in self.turns:
            total.input_tokens += turn.figures.input_tokens
            total.output_tokens += turn.figures.output_tokens
            total.total_tokens += turn.figures.total_tokens
        return total

    @staticmethod
    def details(turn: Turn) -> TurnDetails:
        from app.api.wire import citations, reasoning_summary, search_queries

        items = turn.response.output if turn.response is not None else turn.items
        return TurnDetails(search_queries(items), citations(items), reasoning_summary(items))
