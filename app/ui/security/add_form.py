"""Add an entry: the address or range, a description, the live verdict and the fixes it offers."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.security.checks import Candidate, Tone
from app.ui.colours import Ink, css

from .expiry_menu import ExpiryChoice
from .scope_bar import plain_label

COLOURS = {Tone.GOOD: Ink.GOOD, Tone.CAUTION: Ink.CAUTION, Tone.BAD: Ink.BAD}  # css() at use


DESCRIPTION_LIMIT = 200  # the service's limit on a description, in characters


class AddForm(QGroupBox):
    typed = Signal(str)  # the entry field's text changed: the tab asks for a verdict
    add_clicked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Add an entry", parent)
        # A short example fits the field at 800 px; the tooltip has every form.
        self.cidr = QLineEdit(objectName="cidr", placeholderText="e.g. 203.0.113.0/24")
        self.cidr.setToolTip(
            "An address (203.0.113.7), an IPv4 range (203.0.113.0/24) or an IPv6 one (2001:db8::/48)"
        )
        self.cidr.setAccessibleName("Address or range to add")
        self.cidr.textChanged.connect(self.typed)
        # A one-word hint: the field is ~90 px at 800x600; the question in full is its tooltip.
        self.description = QLineEdit(objectName="description", placeholderText="Description")
        self.description.setToolTip("What it is for (optional)")
        self.description.setMaxLength(DESCRIPTION_LIMIT)
        self.description.setAccessibleName("Description")
        # The limit is said as you type: a 300-character paste is cut to 200 with the count in view.
        self.description_count = QLabel(f"0/{DESCRIPTION_LIMIT}", objectName="description_count")
        # As wide as its longest text: a count growing digit by digit must not narrow the field typed in.
        widest = f"{DESCRIPTION_LIMIT}/{DESCRIPTION_LIMIT}"
        self.description_count.setFixedWidth(
            self.description_count.fontMetrics().horizontalAdvance(widest) + 4
        )
        self.description_count.setToolTip(f"At most {DESCRIPTION_LIMIT} characters: the service's limit.")
        self.description.textChanged.connect(self._count)
        # A paste past the limit is cut by the field; this says so where it happened, not only in a tooltip.
        self.description_note = plain_label("description_note")
        self.description_note.setText(
            f"A description is at most {DESCRIPTION_LIMIT} characters (the service's limit): "
            "the rest of what was typed or pasted was left out."
        )
        self.description_note.setStyleSheet(css(Ink.CAUTION))
        self.description_note.hide()
        self.description.inputRejected.connect(self.description_note.show)
        self.expires = ExpiryChoice()
        self.add_button = QPushButton("Add", objectName="add", enabled=False)
        self.add_button.clicked.connect(self.add_clicked)
        # Enter in either field adds, as the button would (when it can: a refused address is not sent).
        for field in (self.cidr, self.description):
            field.returnPressed.connect(self._enter)
        self.verdict = plain_label("verdict")
        self.suggestions = QHBoxLayout()
        row = QHBoxLayout()
        row.addWidget(self.cidr, 3)  # the address is what is typed with care: the wider field
        row.addWidget(self.description, 2)
        row.addWidget(self.description_count)
        row.addWidget(self.expires)
        row.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.description_note)
        layout.addWidget(self.verdict)
        layout.addLayout(self.suggestions)

    def _enter(self) -> None:
        if self.add_button.isEnabled():
            self.add_clicked.emit()

    def _count(self, text: str) -> None:
        full = len(text) >= DESCRIPTION_LIMIT
        if not full:
            self.description_note.hide()
        self.description_count.setText(f"{len(text)}/{DESCRIPTION_LIMIT}")
        self.description_count.setStyleSheet(css(Ink.CAUTION, "font-weight: bold;") if full else "")
        self.description_count.setToolTip(
            f"At most {DESCRIPTION_LIMIT} characters: the service's limit"
            + (". The limit is reached: what was typed or pasted past it was left out." if full else ".")
        )

    def prefill(self, text: str) -> None:
        self.cidr.setText(text)
        self.cidr.setFocus()

    def clear(self) -> None:
        """After an add: empty fields, and the focus back in the address for the next one (Add, disabled
        as the field empties, would hand the focus on to Check an IP)."""
        focus = QApplication.focusWidget()
        in_form = focus is not None and (focus is self or self.isAncestorOf(focus))
        self.cidr.clear()
        self.description.clear()
        self.expires.reset()
        self.description_note.hide()
        if in_form:
            self.cidr.setFocus(Qt.FocusReason.OtherFocusReason)

    def show_candidate(self, candidate: Candidate | None) -> None:
        self._clear_suggestions()
        if candidate is None:
            self.verdict.clear()
            self.add_button.setEnabled(False)
            return
        self.verdict.setText(candidate.text)
        self.verdict.setStyleSheet(css(COLOURS[candidate.tone]))
        self.add_button.setEnabled(candidate.addable)
        for suggestion in candidate.suggestions:
            button = QPushButton(f"Use {suggestion}", objectName=f"use_{suggestion}")
            button.clicked.connect(lambda _=False, s=suggestion: self.cidr.setText(s))
            self.suggestions.addWidget(button)
        if candidate.suggestions:  # the fixes start at the left, each as wide as its words
            self.suggestions.addStretch(1)

    def _clear_suggestions(self) -> None:
        while self.suggestions.count():
            item = self.suggestions.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
