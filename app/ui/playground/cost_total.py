"""The conversation's cost so far, at the end of the row above the message box: the answers' costs added
up as each one arrives, at the prices the answers show (app/services/prices.py); its tooltip says what the
sum holds, and an answer on a model with no price is counted as unknown, never as $0."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from app.core.playground.cost import conversation_cost, total_breakdown, total_text, turn_cost
from app.services.playground.service import PlaygroundService


class ConversationCost(QLabel):
    """Hidden until an answer used tokens; said again when an answer ends, a conversation opens or the
    prices change."""

    def __init__(self, service: PlaygroundService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.setObjectName("conversation_cost")
        self.setAccessibleName("Conversation cost")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.hide()
        service.totals_changed.connect(self.show_total)
        service.prices.changed.connect(self.show_total)

    def end_row_of(self, bar: QWidget) -> ConversationCost:
        """Placed at the end of `bar`'s row (the attachment bar's: its layout is a row of widgets)."""
        row = bar.layout()
        assert row is not None
        row.addWidget(self)
        return self

    def show_total(self) -> None:
        prices = self.service.prices.book()
        total = conversation_cost(turn_cost(turn, prices) for turn in self.service.turns) if prices else None
        text = total_text(total) if total is not None else ""
        self.setText(text)
        self.setToolTip(total_breakdown(total) if total is not None else "")
        self.setVisible(bool(text))
