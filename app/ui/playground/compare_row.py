"""A row of the compare window: the prompt, then the original answer and the re-run side by side, each
with its figures or what went wrong."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from app.core.playground.call_wording import compare_waiting_text
from app.core.playground.compare import CompareRow
from app.core.playground.cost import PriceBook
from app.core.playground.turn_details import turn_details
from app.core.playground.turns import ErrorKind, Turn, TurnStatus
from app.ui.colours import Ink, css

from .answer_view import MARKDOWN_LIMIT, AnswerView, cost_tooltip, figures_text

RED, AMBER, MUTED = Ink.BAD, Ink.CAUTION, Ink.MUTED  # hex_of() at use: light or dark


def side_status(turn: Turn, prices: PriceBook | None = None) -> tuple[str, Ink]:
    """One side's line under its answer: the figures (the cost too, with `prices`), or what happened to it;
    and its colour."""
    figures = figures_text(turn, prices)
    status = turn.status
    if status == TurnStatus.PENDING:
        return "Waiting for the first token…", MUTED
    if status == TurnStatus.STREAMING:
        return ("Streaming…" if turn.text else "Waiting for the first token…"), MUTED
    if status == TurnStatus.WAITING:
        wait = max(0, round((turn.retry_at or time.monotonic()) - time.monotonic()))
        return f"429: rate limited. Trying again in {wait} s, as the server asks.", AMBER
    if status == TurnStatus.COMPLETED and turn.text:
        return figures, MUTED
    if status in (TurnStatus.COMPLETED, TurnStatus.INCOMPLETE) and turn.error_kind != ErrorKind.CONNECTION:
        reason = turn.response.stop_reason if turn.response is not None else str(status)
        empty = "The answer was empty" if not turn.text else "Incomplete"
        return f"{empty} (stop reason: {reason}). {figures}".strip(), AMBER
    if status == TurnStatus.CALLING:
        return f"{compare_waiting_text(turn)} {figures}".strip(), AMBER
    if status == TurnStatus.STOPPED:
        return f"{turn.round_note or 'Stopped.'} {figures}".strip(), AMBER
    if turn.error_kind == ErrorKind.BLOCKED:
        seen = turn.source_ip or "an unknown address"
        return f"403: the IP allowlist refused this request. The service saw you at {seen}.", RED
    if turn.error_kind == ErrorKind.UNAUTHORIZED:
        return "401: the API key was refused. Check the key of this profile.", RED
    if turn.error_kind == ErrorKind.RATE_LIMITED:
        after = f" The server asks to wait {turn.retry_after:g} s." if turn.retry_after else ""
        return f"429: rate limited.{after}", RED
    if turn.error_kind == ErrorKind.CONNECTION:
        kept = " The partial answer is kept." if turn.text else ""
        return f"Connection lost: {turn.error}{kept}", RED
    return f"Failed: {turn.error or status}", RED


class SideView(QWidget):
    """One answer of a row: a heading, the text, and its status line."""

    def __init__(self, heading: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel(heading, objectName="heading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.reasoning_toggle = QToolButton(text="Reasoning ▸", checkable=True, objectName="reasoning_toggle")
        self.reasoning = QLabel(objectName="reasoning")
        self.reasoning.setTextFormat(Qt.TextFormat.PlainText)
        self.reasoning.setWordWrap(True)
        self.reasoning_toggle.toggled.connect(self._toggle_reasoning)
        self.reasoning_toggle.hide()
        self.reasoning.hide()
        self.answer = AnswerView()
        self.answer.setObjectName("answer")
        self.status = QLabel(objectName="status")
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # servers' error messages: never markup
        self.status.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.reasoning_toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.reasoning)
        layout.addWidget(self.answer)
        layout.addWidget(self.status)
        layout.addStretch(1)

    def _toggle_reasoning(self, shown: bool) -> None:
        self.reasoning.setVisible(shown)
        self.reasoning_toggle.setText("Reasoning ▾" if shown else "Reasoning ▸")

    def say(self, text: str, colour: Ink) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(css(colour))

    def clear(self, text: str) -> None:
        self.answer.clear()
        self.answer.hide()  # no empty box: the status line says it has not run
        self.reasoning_toggle.setChecked(False)
        self.reasoning_toggle.hide()
        self.reasoning.hide()
        self.say(text, MUTED)

    def start(self) -> None:
        self.answer.streaming = True  # grows in steps while text streams: each height change relayouts
        self.answer.show()

    def show_turn(self, turn: Turn, prices: PriceBook | None = None) -> None:
        """A finished turn: its reasoning (folded), its text rendered once as the Playground does, and its
        status line."""
        summary = turn_details(turn).reasoning
        self.reasoning.setText(summary)
        self.reasoning_toggle.setVisible(bool(summary))
        self.answer.show()
        self.answer.done_streaming()
        if turn.text and len(turn.text) <= MARKDOWN_LIMIT:
            self.answer.setMarkdown(turn.text)
        else:
            self.answer.setPlainText(turn.text)
        self.show_figures(turn, prices)

    def show_figures(self, turn: Turn, prices: PriceBook | None) -> None:
        """The status line of a finished turn, its cost broken down in the tooltip."""
        self.say(*side_status(turn, prices))
        self.status.setToolTip(cost_tooltip(turn, prices))


class CompareRowView(QFrame):
    def __init__(
        self, number: int, row: CompareRow, prices: PriceBook | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setObjectName(f"row{number - 1}")
        self.prompt = QLabel(f"{number}. {row.original.prompt or '(images only)'}", objectName="prompt")
        self.prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.prompt.setWordWrap(True)
        self.prompt.setStyleSheet("font-weight: bold;")
        self.notes = QLabel(objectName="notes")
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(css(AMBER))
        self.original = SideView(f"{row.original.model} · original")
        self.rerun = SideView("")
        self.original.show_turn(row.original, prices)
        grid = QGridLayout(self)
        grid.addWidget(self.prompt, 0, 0, 1, 2)
        grid.addWidget(self.notes, 1, 0, 1, 2)
        grid.addWidget(self.original, 2, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.rerun, 2, 1, Qt.AlignmentFlag.AlignTop)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        self.plan(row, "")

    def plan(self, row: CompareRow, model: str) -> None:
        """Before the run: what will be sent, on which model."""
        self.notes.setText(" ".join(row.notes))
        self.notes.setVisible(bool(row.notes))
        effort = f" · reasoning effort {row.options.reasoning_effort}" if row.options.reasoning_effort else ""
        self.rerun.heading.setText(f"{model} · re-run{effort}" if model else "re-run")
        self.rerun.clear("Not run yet.")
