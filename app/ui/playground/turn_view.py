"""One turn of the conversation: the message, searches, reasoning, the streamed answer, figures, errors."""

from __future__ import annotations

import re
import time
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.call_wording import outputs_wanted_text
from app.core.playground.status import RUNNING, waiting_text
from app.core.playground.turn_details import turn_details
from app.core.playground.turns import ErrorKind, Turn, TurnStatus
from app.services.playground.service import PlaygroundService
from app.ui.colours import Ink, css, ink_label
from app.ui.layout_batch import one_layout_pass
from app.ui.widgets.selectable_label import SelectableLabel

from .answer_view import (
    MARKDOWN_LIMIT,
    SOFT_BLOCK_CHARS,
    AnswerView,
    cost_tooltip,
    figures_text,
    schema_verdict,
)
from .calls_view import CallsView
from .transcript import controls_added
from .turn_links import prompt_source_label, sources_html

__all__ = ["MARKDOWN_LIMIT", "SOFT_BLOCK_CHARS", "AnswerView", "TurnView", "figures_text", "schema_verdict"]

_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)


class TurnView(QFrame):
    edit_requested = Signal(int)
    regenerate_requested = Signal(int)
    retry_requested = Signal(int)
    inspect_requested = Signal(int)
    allow_ip_requested = Signal(int)  # the turn refused by the allowlist
    settings_requested = Signal()
    outputs_submitted = Signal(int, dict)  # the turn, call id -> output
    prompt_requested = Signal(str, str)  # the stored prompt's id and version the turn was sent from

    def __init__(self, service: PlaygroundService, index: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.index = index
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName(f"turn{index}")
        turn = self.turn
        layout = QVBoxLayout(self)

        header = QHBoxLayout()
        if turn.chain_on_server:
            mode = "chained on the server"
        else:  # the first turn has no history to chain or to send
            mode = "new conversation" if index == 0 else "whole history sent"
        self.prompt_label = QLabel(f"<b>You</b> · {turn.model} · <i>{mode}</i>")
        header.addWidget(self.prompt_label, 1)
        if turn.prompt_id:
            header.addWidget(prompt_source_label(turn, self.prompt_requested.emit))
        self.edit_button = QToolButton(text="Edit")
        self.edit_button.setToolTip("Edit this message and send it again from here")
        self.edit_button.clicked.connect(lambda: self.edit_requested.emit(self.index))
        header.addWidget(self.edit_button)
        layout.addLayout(header)
        if turn.chain_note:
            note = QLabel(turn.chain_note)
            note.setObjectName("chain_note")
            note.setWordWrap(True)
            note.setStyleSheet(css(Ink.CAUTION))
            layout.addWidget(note)
        layout.addWidget(SelectableLabel(turn.prompt or "(images only)", "message"))  # never markup
        for attachment in turn.attachments:
            layout.addWidget(QLabel(f"Image: {attachment.label} · ~{attachment.tokens} tokens"))

        self.search_label = QLabel()
        self.search_label.setObjectName("searches")
        self.search_label.hide()
        layout.addWidget(self.search_label)
        self.reasoning_toggle = QToolButton(text="Reasoning ▸", checkable=True)
        self.reasoning_toggle.hide()
        self.reasoning_label = QLabel()
        self.reasoning_label.setWordWrap(True)
        self.reasoning_label.setObjectName("reasoning")
        self.reasoning_label.hide()
        self.reasoning_toggle.toggled.connect(self._toggle_reasoning)
        layout.addWidget(self.reasoning_toggle)
        layout.addWidget(self.reasoning_label)
        self.calls = CallsView()
        self.calls.outputs_submitted.connect(lambda outputs: self.outputs_submitted.emit(self.index, outputs))
        layout.addWidget(self.calls)

        self.answer = AnswerView()
        self.answer.setObjectName("answer")
        # No height until text comes (a failed turn is hidden at its end: no empty strip). Shown from the
        # start: a widget shown in a shown window lays out all its parents at once (QWidget::setVisible),
        # and the first text of every answer paid that.
        layout.addWidget(self.answer)
        self.sources = QLabel()
        self.sources.setObjectName("sources")
        self.sources.setOpenExternalLinks(True)
        self.sources.setWordWrap(True)
        self.sources.hide()
        layout.addWidget(self.sources)
        self.verdict = QLabel()
        self.verdict.setObjectName("verdict")
        self.verdict.hide()
        layout.addWidget(self.verdict)

        self.status = QLabel("Waiting for the first token…")
        self.status.setObjectName("status")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # it quotes the server (errors, the address seen)
        layout.addWidget(self.status)
        actions = QHBoxLayout()
        self.action_buttons: dict[str, QPushButton] = {}
        for name, text in (
            ("render", "Render as markdown (long answer)"),
            ("allow", "Allow this IP in Security…"),
            ("settings", "Open profile settings…"),
            ("retry", "Retry"),
            ("copy", "Copy answer"),
            ("inspect", "Inspector"),
            ("regenerate", "Regenerate"),
        ):
            button = QPushButton(text)
            button.setObjectName(name)
            button.hide()
            actions.addWidget(button)
            self.action_buttons[name] = button
        actions.addStretch(1)
        self.code_buttons = QHBoxLayout()
        layout.addLayout(self.code_buttons)
        layout.addLayout(actions)
        self.action_buttons["allow"].clicked.connect(lambda: self.allow_ip_requested.emit(self.index))
        self.action_buttons["settings"].clicked.connect(self.settings_requested.emit)
        self.action_buttons["render"].clicked.connect(lambda: self.answer.setMarkdown(self.turn.text))
        self.action_buttons["retry"].clicked.connect(lambda: self.retry_requested.emit(self.index))
        self.action_buttons["copy"].clicked.connect(
            lambda: QGuiApplication.clipboard().setText(self.turn.text)
        )
        self.action_buttons["inspect"].clicked.connect(lambda: self.inspect_requested.emit(self.index))
        self.action_buttons["regenerate"].clicked.connect(lambda: self.regenerate_requested.emit(self.index))
        self._countdown = QTimer(self)
        self._countdown.setInterval(1000)
        self._countdown.timeout.connect(self._tick)
        self._remaining = 0
        # The wait for the first token, counted on screen: behind a buffering proxy it lasts minutes.
        self._waiting = QTimer(self)
        self._waiting.setInterval(1000)
        self._waiting.timeout.connect(self._show_waiting)
        if turn.status in (TurnStatus.PENDING, TurnStatus.STREAMING) and not turn.text:
            self._waiting.start()

    @property
    def turn(self) -> Turn:
        return self.service.turns[self.index]

    def _toggle_reasoning(self, shown: bool) -> None:
        self.reasoning_label.setVisible(shown)
        self.reasoning_toggle.setText("Reasoning ▾" if shown else "Reasoning ▸")

    def append_text(self, chunk: str) -> None:
        self._waiting.stop()
        if self.status.text().startswith("Waiting"):
            self.status.setText("Streaming…")
        self.answer.append_plain(chunk)

    def _show_waiting(self) -> None:
        turn = self.turn
        if turn.text or turn.status not in RUNNING:
            self._waiting.stop()
        elif (
            turn.status != TurnStatus.WAITING
            and turn.waiting_since is not None
            and self.status.text().startswith("Waiting for the first")
        ):
            self.status.setText(waiting_text(time.monotonic() - turn.waiting_since, turn.proxy))

    def refresh_details(self) -> None:
        details = turn_details(self.turn)
        if details.searches:
            self.search_label.setText(" · ".join(f"Searched: {q}" for q in details.searches))
            self.search_label.show()
        if details.reasoning:
            self.reasoning_label.setText(details.reasoning)
            self.reasoning_toggle.show()
        self.calls.show_turn(self.turn)
        if self.turn.status == TurnStatus.STREAMING and self.turn.rounds > 1 and not self.turn.text:
            self.status.setText(f"Outputs sent: waiting for the model (round {self.turn.rounds})…")
        if self.turn.status == TurnStatus.WAITING and self.turn.retry_at is not None:
            self._remaining = max(0, round(self.turn.retry_at - time.monotonic()))
            self._tick()
            self._countdown.start()
        elif self.turn.status == TurnStatus.STREAMING and self._countdown.isActive():
            self._countdown.stop()
            self.status.setText("Waiting for the first token…")
        elif self.turn.error_kind == ErrorKind.BLOCKED and self.turn.status == TurnStatus.FAILED:
            self._show_blocked(self.turn)  # the lists were read: which one refused

    def finish(self, is_last: bool, schema: dict[str, Any] | None) -> None:
        with one_layout_pass(self):  # the figures, the answer's height and its buttons: one layout
            self._finish(is_last, schema)

    def _finish(self, is_last: bool, schema: dict[str, Any] | None) -> None:
        turn = self.turn
        self.refresh_details()
        self.answer.done_streaming()
        self.answer.setVisible(bool(turn.text))
        if turn.text and len(turn.text) <= MARKDOWN_LIMIT:
            self.answer.setMarkdown(turn.text)  # rendered once, when complete: Qt's own markdown
        elif turn.text:
            self.action_buttons["render"].show()
        self._show_sources()
        self._show_code_buttons()
        if schema is not None and turn.status == "completed":
            ok, verdict = schema_verdict(turn.text, schema)
            self.verdict.setText(verdict)
            ink_label(self.verdict, Ink.GOOD if ok else Ink.BAD)
            self.verdict.show()
        buttons = self.action_buttons
        buttons["copy"].setVisible(bool(turn.text))
        buttons["inspect"].show()
        buttons["regenerate"].setVisible(is_last and turn.status != "streaming")
        self._show_status(turn)

    def _show_status(self, turn: Turn) -> None:
        self._countdown.stop()  # a wait for Retry-After that was stopped
        self._waiting.stop()
        prices = self.service.prices.book()
        figures = figures_text(turn, prices)
        self.status.setToolTip(cost_tooltip(turn, prices))
        if turn.status == TurnStatus.COMPLETED and turn.text:
            self.status.setText(figures)
            ink_label(self.status, Ink.MUTED)
            return
        if turn.status == TurnStatus.CALLING:
            self.status.setText(f"{outputs_wanted_text(turn)} {figures}".strip())
            ink_label(self.status, Ink.CAUTION)
            return
        if turn.round_note:
            self.status.setText(f"{turn.round_note} {figures}".strip())
            ink_label(self.status, Ink.CAUTION)
            return
        if turn.status in (TurnStatus.COMPLETED, TurnStatus.INCOMPLETE) and not turn.text:
            reason = turn.response.stop_reason if turn.response is not None else turn.status
            self.status.setText(f"The answer was empty (stop reason: {reason}). {figures}".strip())
            ink_label(self.status, Ink.CAUTION)
            self.action_buttons["retry"].show()
            return
        ink_label(self.status, Ink.BAD)
        if turn.status == TurnStatus.STOPPED:
            self.status.setText("Stopped." + (f" {figures}" if figures else ""))
        elif turn.error_kind == "blocked":
            self._show_blocked(turn)
        elif turn.error_kind == "unauthorized":
            self.status.setText("401: the API key was refused. Check the key of this profile.")
            self.action_buttons["settings"].show()
        elif turn.error_kind == "rate_limited":
            self._remaining = int(turn.retry_after or 1)
            self._tick()
            self._countdown.start()
        elif turn.status == TurnStatus.INCOMPLETE and turn.error_kind == ErrorKind.CONNECTION:
            self.status.setText(f"Incomplete: {turn.error} The partial answer is kept.")
            self.action_buttons["retry"].show()
        elif turn.status == TurnStatus.INCOMPLETE:
            reason = turn.response.stop_reason if turn.response is not None else turn.error
            self.status.setText(f"Incomplete ({reason}). {figures}")
        else:
            self.status.setText(f"Failed: {turn.error}")
            self.action_buttons["retry"].show()

    def show_cost_again(self) -> None:
        """Other prices: a finished answer's figures line (its cost) says it again."""
        turn = self.turn
        if turn.status not in RUNNING and turn.figures.total_tokens:
            self._show_status(turn)

    def _show_blocked(self, turn: Turn) -> None:
        """A 403 from the allowlist: which list refused (once the lists are read), and the action that fixes
        it, or Retry when the lists admit the address by now."""
        refusal = turn.refusal
        if refusal is None:  # the allowlists' rules (app.netrules) load with the first refusal, not at launch
            from app.core.refusal import reading_text

            self.status.setText(reading_text(turn.source_ip))
        else:
            self.status.setText(refusal.text)
        action = refusal.action if refusal is not None else "Allow this IP in Security…"
        self.action_buttons["allow"].setText(action)
        self.action_buttons["allow"].setVisible(bool(action))
        self.action_buttons["retry"].setVisible(not action)

    def _tick(self) -> None:
        if self.turn.status == TurnStatus.WAITING:
            minutes, seconds = divmod(max(0, self._remaining), 60)
            self.status.setText(
                f"429: rate limited. The server asks to wait: retrying in {minutes}:{seconds:02d}. "
                "Press Stop (Esc) to give up."
            )
            self._remaining -= 1
            return
        if self._remaining <= 0:
            self._countdown.stop()
            self.status.setText("429: rate limited. You can retry now.")
            self.action_buttons["retry"].show()
            return
        self.status.setText(f"429: rate limited. Retry in {self._remaining} s.")
        self._remaining -= 1

    def _show_sources(self) -> None:
        citations = turn_details(self.turn).citations
        shown = sources_html((citation.url, citation.title) for citation in citations)
        if shown:
            self.sources.setText(shown)
            self.sources.show()

    def _show_code_buttons(self) -> None:
        for number, block in enumerate(_FENCE.findall(self.turn.text), 1):
            button = QPushButton(f"Copy code {number}")
            button.clicked.connect(lambda _=False, code=block: QGuiApplication.clipboard().setText(code))
            self.code_buttons.addWidget(button)
        controls_added(self)
