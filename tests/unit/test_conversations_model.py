"""The sidebar's model: its rows read a page at a time, each conversation listed once, in order."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app.core.playground.conversation_store import ConversationSummary
from app.models.conversations import ConversationsModel


def summary(n: int, conversation_id: str | None = None) -> ConversationSummary:
    return ConversationSummary(
        conversation_id or f"conv_{n}", f"Conversation {n}", "service-pro", 1000.0 - n, 1
    )


def test_pages_are_read_after_the_last_one_read_even_when_it_held_only_rows_already_listed(
    qapp: QApplication,
) -> None:
    """A conversation a save moved to the top is listed already when its old place's page comes: that page
    adds nothing, and the next one is read after it, not after the same row again."""
    pages = {"conv_1": [summary(2, "conv_0")], "conv_0": [summary(3)], "conv_3": []}
    asked: list[str] = []

    def next_page(after: ConversationSummary) -> list[ConversationSummary]:
        asked.append(after.id)
        return pages[after.id]

    model = ConversationsModel()
    model.set_summaries([summary(0), summary(1)], next_page)
    for _ in range(3):
        assert model.canFetchMore(model.index(-1))
        model.fetchMore(model.index(-1))
    assert not model.canFetchMore(model.index(-1))
    assert asked == ["conv_1", "conv_0", "conv_3"]
    assert [s.id for s in model.summaries] == ["conv_0", "conv_1", "conv_3"]
    assert [model.index(row).data() for row in range(model.rowCount())] == [
        "Conversation 0",
        "Conversation 1",
        "Conversation 3",
    ]
