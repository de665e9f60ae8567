"""The sidebar's list of saved conversations: a thin model over the summaries the service gives it."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QStringListModel, Qt, Signal

from app.core.playground.conversation_store import ConversationSummary


def when(timestamp: float, now: dt.datetime | None = None) -> str:
    """ "14:05" today, "Mon 14:05" this week, "2026-11-02" before."""
    moment = dt.datetime.fromtimestamp(timestamp)
    now = now or dt.datetime.now()
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    if (now - moment).days < 7:
        return moment.strftime("%a %H:%M")
    return moment.strftime("%Y-%m-%d")


NextPage = Callable[[ConversationSummary], list[ConversationSummary]]  # the page after a summary

COPY_MARK = " · on "  # compare_title's: "Tea · on service-think" is Tea re-run on service-think


def shown_title(title: str) -> str:
    """A re-run on another model (Compare) shows that first, "⇄ service-think: Tea": at the sidebar's width
    its title, cut in the middle, read as a second conversation of the same name."""
    base, mark, model = title.rpartition(COPY_MARK)
    return f"⇄ {model}: {base}" if mark and base and model else title


class ConversationsModel(QStringListModel):
    """The titles as shown, held by Qt (QStringListModel), beside the summaries they show (`summaries`, row for
    row). Laying out and painting the list then never calls into Python: a list of a thousand conversations
    asked this model's Python `rowCount` a thousand times and `data` eight times per row painted, ~2-3 ms of
    every launch. What Qt does not hold (the whole title to edit, the tooltip, the id) is read from
    `summaries` when it is asked for (the sidebar's `ConversationRows`).

    Titles are edited in place; the edit is a request (`rename_requested`), the service does the writing."""

    rename_requested = Signal(str, str)  # conversation id, new title

    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[ConversationSummary] = []
        self._next_page: NextPage | None = None
        self._read_up_to: ConversationSummary | None = None

    def set_summaries(self, summaries: list[ConversationSummary], next_page: NextPage | None = None) -> None:
        """The list's first rows; `next_page(last)` reads the ones after `last` when the list is scrolled
        to its end (Qt's fetchMore), until it gives none."""
        self.summaries = summaries
        self._next_page = next_page if summaries else None
        self._read_up_to = summaries[-1] if summaries else None  # where the next page begins
        self.setStringList([shown_title(summary.title) for summary in summaries])  # a reset of the model

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:
        return self._next_page is not None and not parent.isValid()

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:
        if self._next_page is None or self._read_up_to is None or parent.isValid():
            return
        page = self._next_page(self._read_up_to)
        if not page:
            self._next_page = None
            return
        self._read_up_to = page[-1]  # not the last row shown: a page may hold only rows already listed
        listed = {summary.id for summary in self.summaries}  # one a save moved up meanwhile is listed once
        new = [summary for summary in page if summary.id not in listed]
        first = len(self.summaries)
        self.summaries += new
        self.insertRows(first, len(new))
        for row, summary in enumerate(new, first):
            QStringListModel.setData(self, self.index(row), shown_title(summary.title))

    def put(self, summary: ConversationSummary) -> None:
        """One conversation's row, new or changed, in its place (the newest first): a saved turn changes one
        row, and reading the whole list again for it took more than the save itself."""
        row = self.row_of(summary.id)
        if row >= 0:
            self.removeRows(row, 1)
            del self.summaries[row]
        place = next((r for r, s in enumerate(self.summaries) if s.updated_at <= summary.updated_at), None)
        place = len(self.summaries) if place is None else place
        self.summaries.insert(place, summary)
        self.insertRows(place, 1)
        QStringListModel.setData(self, self.index(place), shown_title(summary.title))

    def row_of(self, conversation_id: str) -> int:
        return next((row for row, s in enumerate(self.summaries) if s.id == conversation_id), -1)

    def tooltip(self, row: int) -> str:
        summary = self.summaries[row]
        turns = f"{summary.turn_count} turn{'s' if summary.turn_count != 1 else ''}"
        return f"{summary.title}\n{summary.model} · {turns} · {when(summary.updated_at)}"

    def setData(
        self, index: QModelIndex | QPersistentModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole
    ) -> bool:
        """An edit in place: asks for the rename (the row changes when the service has saved it)."""
        title = str(value).strip()
        if role != Qt.ItemDataRole.EditRole or not index.isValid() or not title:
            return False
        summary = self.summaries[index.row()]
        if title != summary.title:
            self.rename_requested.emit(summary.id, title)
        return True
