"""Find in this conversation (Ctrl+F): every turn's message and answer, built or not, as a browser's find bar.

Matches are counted on the turns themselves, so a conversation whose earlier turns have no view yet is
searched whole; going to a match builds that turn's view, scrolls to it and selects the text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, overload

import shiboken6
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QScrollArea,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.turns import Turn

if TYPE_CHECKING:  # the views are built by the tab; the bar only goes to them
    from .turn_view import TurnView

Part = Literal["message", "calls", "answer"]


@dataclass(frozen=True)
class Match:
    turn: int
    part: Part
    occurrence: int  # 0 for the first occurrence in that part


class Matches(Sequence[Match]):
    """The matches of a query, counted per message and answer (`str.count`, at C speed) and made into a
    `Match` only when one is gone to: an object per match would be 300,000 objects for a one-letter query
    over a 300,000-token conversation, ~450 ms a keystroke; counting takes ~10 ms."""

    def __init__(self, counts: list[tuple[int, Part, int]]) -> None:
        self._counts = counts  # (turn, part, how many), parts with none left out, in reading order
        self._total = sum(count for _, _, count in counts)

    def __len__(self) -> int:
        return self._total

    @overload
    def __getitem__(self, number: int) -> Match: ...

    @overload
    def __getitem__(self, number: slice) -> Sequence[Match]: ...

    def __getitem__(self, number: int | slice) -> Match | Sequence[Match]:
        if isinstance(number, slice):
            return [self[n] for n in range(*number.indices(self._total))]
        if number < 0:
            number += self._total
        if not 0 <= number < self._total:
            raise IndexError(number)
        for turn, part, count in self._counts:
            if number < count:
                return Match(turn, part, number)
            number -= count
        raise IndexError(number)


@lru_cache(maxsize=512)  # a long conversation's messages and answers; bounded, as it keeps them
def _folded(text: str) -> str:
    """A text as compared, ignoring case; a finished turn's text is folded once, not at every keystroke."""
    return text.casefold()


def calls_text(turn: Turn) -> str:
    """A turn's function calls as searched: each call's name, arguments and output."""
    return "\n".join(f"{call.name} {call.arguments} {call.output or ''}" for call in turn.calls)


def find_matches(turns: list[Turn], query: str) -> Matches:
    """Every occurrence of `query` (ignoring case) in the turns' messages, function calls (arguments and
    outputs) and answers, in reading order."""
    needle = query.casefold()
    counts: list[tuple[int, Part, int]] = []
    if needle:
        for index, turn in enumerate(turns):
            parts: tuple[tuple[Part, str], ...] = (
                ("message", turn.prompt),
                ("calls", calls_text(turn)),
                ("answer", turn.text),
            )
            for part, text in parts:
                count = _folded(text).count(needle)
                if count:
                    counts.append((index, part, count))
    return Matches(counts)


class _FindField(QLineEdit):
    """Enter: next, Shift+Enter: previous, Esc: close (before the Playground's Esc, which stops a stream)."""

    step = Signal(int)
    close_requested = Signal()

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent):
            if event.key() == Qt.Key.Key_Escape:
                event.accept()
                return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            self.step.emit(-1 if shift else 1)
        elif event.key() == Qt.Key.Key_Escape:
            self.close_requested.emit()
        else:
            super().keyPressEvent(event)


class FindBar(QWidget):
    """The bar under the conversation; `go_to` is given a match and shows it (the tab builds the view)."""

    go_to = Signal(Match)

    def __init__(self, turns: Callable[[], list[Turn]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._turns = turns
        self._matches = Matches([])
        self._current = -1
        self._before: QWidget | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.field = _FindField(objectName="find_field", placeholderText="Find in this conversation")
        self.field.setClearButtonEnabled(True)
        self.count = QLabel(objectName="find_count")
        self.previous = QToolButton(text="↑", objectName="find_previous", toolTip="Previous (Shift+Enter)")
        self.next = QToolButton(text="↓", objectName="find_next", toolTip="Next (Enter)")
        close = QToolButton(text="✕", objectName="find_close", toolTip="Close (Esc)")
        for widget in (QLabel("Find"), self.field, self.count, self.previous, self.next, close):
            layout.addWidget(widget)
        layout.setStretch(1, 1)
        self.field.textChanged.connect(lambda _text: self.search())
        self.field.step.connect(self.step)
        self.field.close_requested.connect(self.close_bar)
        self.previous.clicked.connect(lambda: self.step(-1))
        self.next.clicked.connect(lambda: self.step(1))
        close.clicked.connect(self.close_bar)
        self.hide()

    @classmethod
    def above(cls, widget: QWidget, turns: Callable[[], list[Turn]]) -> FindBar:
        """A bar put just above `widget` in its column (a vertical layout), where a browser's find bar is."""
        bar = cls(turns)
        column = widget.parentWidget()
        layout = column.layout() if column is not None else None
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(layout.indexOf(widget), bar)
        return bar

    def open_bar(self) -> None:
        focus = QApplication.focusWidget()
        if focus is not None and not self.isAncestorOf(focus):
            self._before = focus  # where the focus goes back to when the bar closes
        self.show()
        self.field.setFocus()
        self.field.selectAll()
        self.search()

    def close_bar(self) -> None:
        """Hide the bar; the focus goes back where it was before Find. Left to Qt, it would go to the next
        control on the chain, the first turn shown, and the transcript would scroll away from the match."""
        focus = QApplication.focusWidget()
        had_focus = focus is not None and self.isAncestorOf(focus)
        before = self._before
        if had_focus and before is not None and shiboken6.isValid(before) and before.isVisible():
            before.setFocus(Qt.FocusReason.OtherFocusReason)
        self.hide()

    def search(self) -> None:
        """Count the matches anew (the conversation may have grown) and show the first one."""
        self._matches = find_matches(self._turns(), self.field.text())
        self._current = -1
        self.step(1)

    def step(self, direction: int) -> None:
        if not self._matches:
            self.count.setText("No matches" if self.field.text() else "")
            return
        self._current = (self._current + direction) % len(self._matches)
        self.count.setText(f"{self._current + 1:,} of {len(self._matches):,}")
        self.go_to.emit(self._matches[self._current])


def select_occurrence(document: QTextDocument, query: str, occurrence: int) -> QTextCursor:
    """The cursor selecting the `occurrence`-th match of `query` (counted from 0) in the document, or the last
    one there is if the shown text has fewer (rendered markdown drops its markup); null if none."""
    last = QTextCursor()
    found = document.find(query, 0)
    for _ in range(occurrence + 1):
        if found.isNull():
            break
        last = found
        found = document.find(query, found)
    return last


def occurrence_start(text: str, query: str, occurrence: int) -> int:
    """Where the `occurrence`-th match of `query` (ignoring case) starts in `text`; -1 if there is none."""
    haystack, needle = text.casefold(), query.casefold()
    start = haystack.find(needle)
    for _ in range(occurrence):
        if start < 0:
            break
        start = haystack.find(needle, start + len(needle))
    return start


def deselect_others(page: QWidget, keep: QWidget | None) -> None:
    """Only the match shown stays selected: typing "kes" goes from the "ke" of one turn to the next turn,
    and the first turn kept its "ke" selected."""
    for label in page.findChildren(QLabel, "message"):
        if label is not keep and label.hasSelectedText():
            label.setSelection(0, 0)
    for answer in page.findChildren(QTextBrowser, "answer"):
        cursor = answer.textCursor()
        if answer is not keep and cursor.hasSelection():
            cursor.clearSelection()
            answer.setTextCursor(cursor)


def show_match(view: TurnView, transcript: QScrollArea, match: Match, query: str) -> None:
    """Select the match in its turn's view and scroll the transcript to it (once laid out: a view just built
    has no place on the page yet)."""
    page = transcript.widget()
    label = view.findChild(QLabel, "message")
    assert page is not None and label is not None
    deselect_others(page, {"message": label, "answer": view.answer}.get(match.part))
    if match.part == "calls":
        QTimer.singleShot(0, transcript, lambda: transcript.ensureWidgetVisible(view.calls))
        return
    if match.part == "message":
        start = occurrence_start(label.text(), query, match.occurrence)
        if start >= 0:
            label.setSelection(start, len(query))
        QTimer.singleShot(0, transcript, lambda: transcript.ensureWidgetVisible(label))
        return
    cursor = select_occurrence(view.answer.document(), query, match.occurrence)
    if cursor.isNull():
        QTimer.singleShot(0, transcript, lambda: transcript.ensureWidgetVisible(view.answer))
        return
    view.answer.setTextCursor(cursor)

    def scroll() -> None:
        spot = view.answer.viewport().mapTo(page, view.answer.cursorRect(cursor).center())
        transcript.ensureVisible(spot.x(), spot.y(), 0, transcript.viewport().height() // 3)

    QTimer.singleShot(0, transcript, scroll)
