"""Runs Playground turns: builds the request, streams it (turn_runner), flushes the text to the view on a
~30 ms timer, keeps the conversation's turns."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.playground.status import RUNNING, ErrorKind, TurnStatus
from app.services.prices import price_source
from app.services.session.session import ConsoleSession

from .conversation_socket import ConversationSocket

if TYPE_CHECKING:
    from collections.abc import Callable

    # pydantic and httpx load on the first send, and the turns' own modules (their dataclasses, the request
    # bodies, the schema check) with the first turn: none of them is needed to build the tab.
    from app.api.requests import ResponseCreateParams
    from app.core.playground.functions import ToolSettings
    from app.core.playground.turn_runner import TurnRun
    from app.core.playground.turns import Attachment, RequestOptions, RequestPlan, Turn
    from app.core.prompt_turns import PromptUse

__all__ = ["FLUSH_INTERVAL_MS", "PlaygroundService"]

FLUSH_INTERVAL_MS = 30


class PlaygroundService(QObject):
    turn_added = Signal(int)
    text_flushed = Signal(int, str)  # turn index, the text that arrived since the last flush
    turn_updated = Signal(int)  # search, reasoning or status changed
    request_sent = Signal(int)  # a request of the turn was written: the server works on it now
    turn_finished = Signal(int)  # a turn's run ended (completed, failed, stopped): its outcome is new
    turn_shown = Signal(int)  # a turn finished earlier is shown again (an edit below it, a reopened one)
    # A turn's run ended after its conversation was left (another opened, a new one): the turn and its index
    # in the conversation it belongs to, which is no longer shown.
    turn_left = Signal(object, int)
    totals_changed = Signal()
    conversation_reset = Signal()

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.prices = price_source(session)  # what the answers cost, shown beside their tokens
        self.turns: list[Turn] = []
        self._current: TurnRun | None = None  # the turn streaming now
        # Turns sent from a stored prompt (by index): the prompt, its values, what was typed and whether the
        # service kept it, so that Regenerate or Retry sends them the same way.
        self._sources: dict[int, tuple[PromptUse, str, bool]] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(FLUSH_INTERVAL_MS)
        self._timer.timeout.connect(self._flush)
        self.socket = ConversationSocket(session)

    # -- requests ---------------------------------------------------------------------------------

    def build_body(
        self, prompt: str, attachments: list[Attachment], options: RequestOptions, index: int | None = None
    ) -> ResponseCreateParams:
        """The body a turn at `index` (a new one by default) would send; see turns.build_request."""
        from app.core.playground.turns import build_request

        index = len(self.turns) if index is None else index
        return build_request(self.turns[:index], prompt, attachments, options, self.server).body

    def _plan(
        self,
        prompt: str,
        attachments: list[Attachment],
        options: RequestOptions,
        source: PromptUse | None,
        stores: bool,
    ) -> tuple[RequestPlan, str]:
        """The next turn's request and its message as shown: from a stored prompt when `source` is one
        (the `prompt` parameter where the service keeps it, `stores`; its filled text otherwise)."""
        from app.core.playground.turns import build_request

        if source is None:
            return build_request(self.turns, prompt, attachments, options, self.server), prompt
        from app.core.prompt_turns import prompt_turn

        return prompt_turn(self.turns, source, prompt, attachments, options, self.server, stores)

    @property
    def server(self) -> str:
        """The profile whose server the next request goes to: a conversation's chain lives on one server."""
        profile = self.session.profile
        return profile.id if profile is not None else ""

    def send(
        self,
        prompt: str,
        attachments: list[Attachment],
        options: RequestOptions,
        source: PromptUse | None = None,
        stores: bool = False,
    ) -> int:
        """Start a new turn (from the stored prompt `source` when given); returns its index. A turn already
        streaming is stopped first."""
        from app.core.playground.turns import Turn

        self._leave_waiting_calls()
        self.stop()
        typed = prompt
        plan, prompt = self._plan(prompt, attachments, options, source, stores)
        turn = Turn(
            prompt,
            list(attachments),
            options.model,
            plan.chained,
            request_body=plan.body,
            chain_note=plan.chain_note,
            schema=options.schema,
            tools=options.tools,
            chain_requested=options.chain_on_server,
            server=self.server,
        )
        if source is not None:
            turn.prompt_id, turn.prompt_version = source.stored.id, source.version_number
            turn.prompt_name = source.stored.name
        self.turns.append(turn)
        index = len(self.turns) - 1
        if source is not None:  # the values as sent: the form may change before a Regenerate
            self._sources[index] = (dataclasses.replace(source, values=dict(source.values)), typed, stores)
        self.turn_added.emit(index)
        task = self.session.tasks.start("playground.stream", self._run(index))
        task.add_done_callback(lambda _task: self._never_started(index, turn))
        return index

    def _leave_waiting_calls(self) -> None:
        """A new message while the model waits for function outputs: that turn ends, saying why, as its
        calls go unanswered (not a bare "Stopped", as if the person had pressed Stop)."""
        from app.core.playground.call_wording import unanswered_note

        for index, turn in enumerate(self.turns):
            if turn.status == TurnStatus.CALLING:
                turn.round_note = unanswered_note(turn.pending_calls)
                turn.status = TurnStatus.STOPPED
                self.turn_finished.emit(index)

    def _never_started(self, index: int, turn: Turn) -> None:
        """A turn cancelled before its task ran a single step still ends, as stopped."""
        if turn.status == TurnStatus.PENDING:
            turn.status = TurnStatus.STOPPED
            self._ended(index, turn)

    def _shown(self, index: int, turn: Turn) -> bool:
        """`turn` is still the conversation's turn `index`: not left for another conversation, nor dropped."""
        return index < len(self.turns) and self.turns[index] is turn

    def _to_view(self, index: int, turn: Turn, emit: Callable[..., None], *args: object) -> None:
        if self._shown(index, turn):
            emit(index, *args)

    def _ended(self, index: int, turn: Turn) -> None:
        """A run's end, said to the conversation shown, or as `turn_left` when that is another one now."""
        if self._shown(index, turn):
            self.turn_finished.emit(index)
        else:
            self.turn_left.emit(turn, index)

    def resend_from(self, index: int, prompt: str, options: RequestOptions) -> int:
        """Edit an earlier message (or regenerate the last answer): drop it and the turns after, send again."""
        attachments = self.turns[index].attachments if index < len(self.turns) else []
        # The same message again (Regenerate, Retry) goes as it went; an edited one is the person's text.
        again = (
            self._sources.get(index)
            if index < len(self.turns) and self.turns[index].prompt == prompt
            else None
        )
        self._sources = {kept: source for kept, source in self._sources.items() if kept < index}
        self.stop()
        del self.turns[index:]
        self.conversation_reset.emit()
        for i in range(len(self.turns)):  # nothing of these changed: shown again, not finished (saved) again
            self.turn_added.emit(i)
            self.turn_shown.emit(i)
        if again is not None:
            return self.send(again[1], attachments, options, again[0], again[2])
        return self.send(prompt, attachments, options)

    def restore(self, turns: list[Turn]) -> None:
        """Show a saved conversation: its turns replace the current ones, finished as they were."""
        self.stop()
        self.socket.close()
        self.turns[:] = turns
        self._sources.clear()
        self.conversation_reset.emit()
        for index in range(len(self.turns)):
            self.turn_added.emit(index)
            self.turn_shown.emit(index)
        self.totals_changed.emit()

    def new_conversation(self) -> None:
        self.stop()
        self.socket.close()
        self.turns.clear()
        self._sources.clear()
        self.conversation_reset.emit()
        self.totals_changed.emit()

    def stop(self) -> bool:
        """Stop the turn streaming, or end a turn waiting for function outputs where it is."""
        if self.session.tasks.cancel("playground.stream"):
            return True
        for index, turn in enumerate(self.turns):
            if turn.status == TurnStatus.CALLING:
                turn.status = TurnStatus.STOPPED
                self.turn_finished.emit(index)
                return True
        return False

    @property
    def streaming(self) -> bool:
        return self.session.tasks.running("playground.stream")

    # -- the stream -------------------------------------------------------------------------------

    def submit_outputs(self, index: int, outputs: dict[str, str]) -> bool:
        """Answer a turn's pending function calls (call id -> output) and send them back; the loop goes on
        until the model answers in text, the bound on rounds is reached, or Stop. False when there is
        nothing to answer (another turn is streaming, or the turn is not waiting for outputs)."""
        if index >= len(self.turns) or self.streaming:
            return False
        turn = self.turns[index]
        if turn.status != TurnStatus.CALLING:
            return False
        for call in turn.pending_calls:
            if call.call_id in outputs:
                call.output, call.answered_by_saved = outputs[call.call_id], False
        if turn.pending_calls:
            return False  # parallel calls are answered together
        self.session.tasks.start("playground.stream", self._run(index, follow_up=True))
        return True

    async def _run(self, index: int, follow_up: bool = False) -> None:
        from app.core.playground.function_loop import next_round, run_turn
        from app.core.playground.socket_channel import whole_history
        from app.core.playground.turn_runner import TurnRun, report_connection

        turn = self.turns[index]
        body = None
        if follow_up:
            body = next_round(self.turns[:index], turn, self.server)
            self.turn_updated.emit(index)
        # A cancelled run's last flush comes after another conversation may have been opened: its text and
        # state go to its own turn only, never to the view now at its index.
        run = TurnRun(
            turn,
            lambda chunk: self._to_view(index, turn, self.text_flushed.emit, chunk),
            lambda: self._to_view(index, turn, self.turn_updated.emit),
            lambda: self._to_view(index, turn, self.request_sent.emit),
        )
        if self.session.client is None and self.session.detail:
            run.no_client = f"No connection: {self.session.detail}"
        run.channel = self.socket.channel()
        run.unchained = lambda request: whole_history(self.turns[:index], turn, request)
        notes = len(turn.socket.notes) if turn.socket is not None else 0
        self._current = run
        self._timer.start()
        try:
            await run_turn(
                run,
                self.session.client,
                lambda: self.turns[:index],
                body=body,
                on_round=lambda: self._to_view(index, turn, self.turn_updated.emit),
            )
        finally:
            if self._current is run:  # a turn sent meanwhile has its own run and timer
                self._current = None
                self._timer.stop()
            for note in turn.socket.notes[notes:] if turn.socket is not None else []:
                self.session.bus.warning(note)  # a reconnect, a fallback to HTTP, a new chain: said once
            self._ended(index, turn)
            self.totals_changed.emit()
            report_connection(self.session, turn)
            if turn.error_kind == ErrorKind.BLOCKED:
                self.session.tasks.start(f"playground.refusal.{index}", self._find_refusal(index, turn))

    async def _find_refusal(self, index: int, turn: Turn) -> None:
        """Which list refused the turn, read through the Admin API; the view shows it when it is known."""
        from app.core.refusal import find_refusal

        client, profile = self.session.client, self.session.profile
        if client is None:
            return
        project_id = profile.project_id if profile is not None else None
        turn.refusal = await find_refusal(client, project_id, turn.source_ip)
        if (
            index < len(self.turns) and self.turns[index] is turn
        ):  # not dropped by an edit or a new conversation
            self.turn_updated.emit(index)

    def _flush(self) -> None:
        if self._current is not None:
            self._current.flush()

    # -- reading a turn ---------------------------------------------------------------------------

    def is_running(self, index: int) -> bool:
        """Turn `index` is still being answered (its view catches up with it on a timer)."""
        return index < len(self.turns) and self.turns[index].status in RUNNING

    def last_model(self) -> str | None:
        """The model the conversation was last talking to: a reopened one goes on with it."""
        return self.turns[-1].model if self.turns else None

    def offered_tools(self) -> ToolSettings | None:
        """The functions the conversation last offered (they are kept with it); None when it offered none."""
        return next((turn.tools for turn in reversed(self.turns) if turn.tools.functions), None)

    def code_snippets(
        self,
        prompt: str,
        attachments: list[Attachment],
        options: RequestOptions,
        source: PromptUse | None = None,
        stores: bool = False,
    ) -> dict[str, str]:
        """The request the next turn would send (a greeting when nothing is typed and no prompt is in use),
        as code in each language: the profile's address and the names of the variables holding its
        secrets, never their values."""
        from app.core.playground.snippet_socket import snippets_for
        from app.core.profile import snippet_network

        profile, client = self.session.profile, self.session.client
        typed = prompt if source is not None else prompt or "Hello"
        return snippets_for(
            client.base_url if client else "",
            self._plan(typed, attachments, options, source, stores)[0].body,
            profile.api_key_env if profile else "SERVICE_API_KEY",
            snippet_network(profile, self.session.secrets),
            options.tools.functions,
            options.tools.max_rounds,
            websocket=bool(profile and profile.websocket_mode),
        )
