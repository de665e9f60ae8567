"""A turn's function calls: each call's name and arguments (pretty-printed, checked against the function's
schema), the output sent back or a box to type it in, and Send outputs for the calls of one round, which are
answered together."""

from __future__ import annotations

import functools
import html

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.function_calls import FunctionCall, check_arguments
from app.core.playground.turns import Turn, TurnStatus
from app.ui.colours import Ink, ink_label
from app.ui.layout_batch import one_layout_pass
from app.ui.widgets.selectable_label import SelectableLabel

from .transcript import controls_added


@functools.cache
def _mono() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font


def _plain(text: str, name: str, font: QFont | None = None) -> SelectableLabel:
    """Plain text (the model's and the person's, never markup), selectable, wrapped: a rich-text label cost
    two to ten times a plain one to lay out (measured alone, on a loaded machine)."""
    return SelectableLabel(text, name, font)


def call_title(call: FunctionCall) -> str:
    return f"ƒ {call.name} · call {call.call_id} · round {call.round}"


def verdict_text(call: FunctionCall, verdict: str) -> str:
    """The check of the arguments, and once answered, where the output below came from."""
    if not call.answered:
        return verdict
    return f"{verdict}\n{'Output (the saved output)' if call.answered_by_saved else 'Output'}:"


class CallBox(QFrame):
    """One call: what the model asked for, and its answer (shown, or to be typed).

    Only a call the person is to answer (the turn waits for outputs) gets the editing form; any other is a
    few plain labels that follow the call (`show_call`): a call answered by its saved output while the turn
    streams fills its output label, not a box built again (building the form and then the answered box
    would be the largest part of a function turn's drawing)."""

    def __init__(self, turn: Turn, call: FunctionCall, editable: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.call = call
        self.setObjectName(f"call_{call.call_id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.output: QPlainTextEdit | None = None
        if not editable:
            layout.setSpacing(2)
            layout.addWidget(_plain(call_title(call), "call_head", _bold()))
            layout.addWidget(_plain(call.pretty_arguments(), "call_arguments", _mono()))
            self.verdict: QLabel = _plain("", "call_answered")
            layout.addWidget(self.verdict)
            self.shown_output = _plain("", "call_output", _mono())
            layout.addWidget(self.shown_output)
            self.show_call(turn)
            return
        verdict = check_arguments(call, turn.tools.definition(call.name))
        head = QLabel(
            f"<b>ƒ {html.escape(call.name)}</b> · call {html.escape(call.call_id)} · round {call.round}"
        )
        head.setObjectName("call_head")
        layout.addWidget(head)
        layout.addWidget(_plain(call.pretty_arguments(), "call_arguments", _mono()))
        self.verdict = ink_label(
            QLabel(verdict.text, objectName="call_verdict"), Ink.GOOD if verdict.ok else Ink.BAD
        )
        self.verdict.setWordWrap(True)
        layout.addWidget(self.verdict)
        self.output = QPlainTextEdit(objectName="call_output_edit")
        self.output.setFont(_mono())
        self.output.setAccessibleName(f"Output of {call.name}")
        self.output.setPlaceholderText(f"The output of {call.name}, e.g. JSON; sent back to the model")
        self.output.setMaximumHeight(4 * self.output.fontMetrics().lineSpacing() + 12)
        self.output.setTabChangesFocus(True)
        definition = turn.tools.definition(call.name)
        row = QHBoxLayout()
        row.addWidget(self.output, 1)
        if definition is not None and definition.mock_output:
            use = QPushButton("Use saved output", objectName="use_saved_output")
            use.clicked.connect(lambda: self._fill(definition.mock_output))
            row.addWidget(use, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(row)

    def show_call(self, turn: Turn) -> None:
        """The labels again, as the call is now (its output may have come)."""
        if self.output is None:
            call = self.call
            verdict = check_arguments(call, turn.tools.definition(call.name))
            self.verdict.setText(verdict_text(call, verdict.text))
            ink_label(self.verdict, Ink.GOOD if verdict.ok else Ink.BAD)
            # Empty until answered, never hidden: showing a widget in a shown window lays out its parents at
            # once (QWidget::setVisible), and text set is laid out with the rest, later.
            self.shown_output.setText(call.output or "")

    def _fill(self, text: str) -> None:
        if self.output is not None:
            self.output.setPlainText(text)

    def typed(self) -> str | None:
        return self.output.toPlainText() if self.output is not None else None


class CallsView(QWidget):
    outputs_submitted = Signal(dict)  # call id -> output, for every pending call

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("calls")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.boxes: list[CallBox] = []
        self.rounds = ink_label(QLabel(objectName="call_rounds"), Ink.MUTED)
        self.problem = ink_label(QLabel(objectName="call_problem"), Ink.BAD)
        self.problem.hide()
        self.send = QPushButton("Send outputs", objectName="send_outputs")
        self.send.setToolTip("Send every output of this round back to the model, and go on")
        self.send.clicked.connect(self.submit)
        self._shape: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset())
        self._outputs: tuple[str | None, ...] = ()
        self.hide()

    def show_turn(self, turn: Turn) -> None:
        """Build the calls' boxes again only when the calls, or which of them wait for the person, changed
        (a box is a few widgets: building them at every status change cost more than the rest of a turn's
        drawing); an output that came is shown in its box; the round and Send outputs follow the turn."""
        editable = (
            frozenset(call.call_id for call in turn.pending_calls)
            if turn.status == TurnStatus.CALLING
            else frozenset()
        )
        shape = (tuple(call.call_id for call in turn.calls), editable)
        if shape != self._shape:
            self._shape = shape
            self._build(turn, editable)
        else:
            outputs = tuple(call.output for call in turn.calls)
            if outputs != self._outputs:
                for box in self.boxes:
                    box.show_call(turn)
        self._outputs = tuple(call.output for call in turn.calls)
        if not turn.calls:
            return
        bound = turn.tools.max_rounds
        self.rounds.setText(
            f"Round {turn.rounds} of at most {bound}" + (f" · {turn.round_note}" if turn.round_note else "")
        )
        self.send.setVisible(turn.status == TurnStatus.CALLING and bool(turn.pending_calls))

    def _build(self, turn: Turn, editable: frozenset[str]) -> None:
        with one_layout_pass(self):  # the boxes, and this view shown: the turn and the page laid out once
            self._build_boxes(turn, editable)
        controls_added(self)

    def _build_boxes(self, turn: Turn, editable: frozenset[str]) -> None:
        typed = {box.call.call_id: box.typed() for box in self.boxes}
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget not in (self.rounds, self.problem, self.send):
                widget.deleteLater()
        self.boxes = []
        if not turn.calls:
            self.hide()
            return
        for call in turn.calls:
            box = CallBox(turn, call, call.call_id in editable, self)
            if box.output is not None:
                box.output.installEventFilter(self)  # Ctrl+Enter there sends the outputs
                if typed.get(call.call_id):
                    box.output.setPlainText(typed[call.call_id] or "")
            self.boxes.append(box)
            self._layout.addWidget(box)
        self.rounds.setWordWrap(True)
        self._layout.addWidget(self.rounds)
        self._layout.addWidget(self.problem)
        self.problem.hide()
        self._layout.addWidget(self.send, 0, Qt.AlignmentFlag.AlignLeft)
        self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Ctrl+Enter in an output box sends the outputs, as it sends the message from the message box (the
        window's shortcut would send the empty message box, that is nothing)."""
        kind = event.type()
        if (
            kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            event.accept()  # the box takes the key from the shortcut, and sends
            if kind == QEvent.Type.KeyPress:
                self.submit()
            return True
        return super().eventFilter(watched, event)

    def submit(self) -> None:
        outputs: dict[str, str] = {}
        for box in self.boxes:
            text = box.typed()
            if text is None:
                continue
            if not text.strip():
                self.problem.setText(f"Type an output for {box.call.name} (call {box.call.call_id}) first.")
                self.problem.show()
                if box.output is not None:
                    box.output.setFocus()
                return
            outputs[box.call.call_id] = text
        self.problem.hide()
        if outputs:
            self.outputs_submitted.emit(outputs)
