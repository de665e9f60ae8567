"""The entries table: a thin Qt model over the list the AllowlistService holds. It never fetches.

It filters and sorts itself over precomputed keys instead of using QSortFilterProxyModel: a proxy calls
back into Python once per row on every keystroke (100,000 calls), where one pass in C suffices
(`compress` over `map(contains, …)`: no Python bytecode per row). A long list is sorted on the builder thread
(app/core/security/entry_order.py) and its rows keep their order until the new one is handed over.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from contextlib import suppress
from itertools import compress
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal

from app.core.security.entry_order import Arranged, SortColumn, arrange_later, serials_in_order
from app.core.security.entry_search import EntrySearch
from app.core.security.entry_views import EntryView, shown_by
from app.core.security.expiry import describe_left
from app.netrules import Address
from app.netrules.index import BITS, EntryIndex, interval_of

if TYPE_CHECKING:
    from concurrent.futures import Future

    from app.services.security.allowlist import Entry

COLUMNS = (
    "Address or range",
    "Description",
    "Expires",
    "Hits",
    "Last matched",
    "Created",
    "Addresses",
    "Covers you",
)
ADDRESS, DESCRIPTION, EXPIRES, HITS, LAST_MATCHED, CREATED, SIZE, COVERS = range(len(COLUMNS))
NUMBERS = frozenset({HITS, SIZE})  # right-aligned
_COLUMN_COUNT = len(COLUMNS)
ModelIndex = QModelIndex | QPersistentModelIndex
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)  # plain ints: data() compares roles thousands of times per paint
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_NUMBER_ALIGNMENT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_BY_INDEX = frozenset({ADDRESS, SIZE, COVERS})  # columns sorted by what the index knows
_SORTS = tuple(SortColumn)  # in the order of COLUMNS
# A longer list is sorted off the GUI thread (see `sort`); up to this many entries a sort takes a few ms.
SORT_HERE_UP_TO = 5_000


def _day_of(moment: float) -> str:
    """The local day of a moment, as 2026-05-17 (`isoformat` of a date: a third of `strftime`'s time)."""
    return dt.date.fromtimestamp(moment).isoformat()


class EntriesModel(QAbstractTableModel):
    arranged = (
        Signal()
    )  # the rows are shown in the order last chosen (a long list's sort is off the GUI thread)
    _arranged = Signal()  # a sort made off the GUI thread is ready (emitted there: delivered queued)

    def __init__(self) -> None:
        super().__init__()
        self._pending: Future[Arranged] | None = None  # a sort made off the GUI thread (see `sort`)
        self._arranged.connect(self._take_arranged, Qt.ConnectionType.QueuedConnection)
        self._sort_later = QTimer(self)
        self._sort_later.setSingleShot(True)
        self._sort_later.setInterval(0)
        self._sort_later.timeout.connect(self._start_arranging)
        self.entries: Sequence[Entry] = ()
        self.visible: list[int] = []  # indexes into entries, in display order
        self._index: EntryIndex | None = None  # None until the caller has it (built off the GUI thread)
        self._covers: list[bool] = []
        self._order: list[int] = []
        # The filter's keys in display order; None while the rows wait for their index in list order (made
        # then by the first filter keystroke: a 100,000-entry load shows its rows sooner without them).
        self._search: EntrySearch | None = None
        self._needle = ""
        self._sort: tuple[int, Qt.SortOrder] | None = None
        self.view = EntryView.ALL
        self.view_days = 30
        self._shown: list[bool] | None = None  # the view's flag per entry (None: every entry)
        self._ordered_shown: list[bool] | None = None  # the same in display order

    # -- contents ---------------------------------------------------------------------------------

    def set_entries(
        self,
        entries: Sequence[Entry],
        my_ip: Address | None,
        index: EntryIndex | None = None,
        search: EntrySearch | None = None,
    ) -> None:
        """`index`: the entries' index, or None while it is being built: the rows show in list order, without
        "Covers you", until `set_index` brings it. The model never builds it: that is 0.2-0.4 s at 100,000
        entries, which the GUI thread must not spend (the Security tab has it built on a worker thread).
        `search`: the filter's keys made beside it, in the order by address (see `_arrange`)."""
        self.beginResetModel()
        self.entries = entries
        self._index = index
        self._covers = self._covering(my_ip)
        self._shown = shown_by(self.view, entries, time.time(), self.view_days)
        self._arrange(search)
        self._apply_filter()
        self.endResetModel()

    def set_view(self, view: EntryView, days: int = 30) -> None:
        """Show only the expired, the expiring or the stale entries (or all again)."""
        if (view, days) == (self.view, self.view_days):
            return
        self.beginResetModel()
        self.view, self.view_days = view, days
        self._shown = shown_by(view, self.entries, time.time(), days)
        self._ordered_shown = self._in_order(self._shown)
        self._apply_filter()
        self.endResetModel()

    def _in_order(self, flags: list[bool] | None) -> list[bool] | None:
        return self._in_order_of(self._order, flags)

    def set_index(self, index: EntryIndex, my_ip: Address | None, search: EntrySearch | None = None) -> None:
        """The index of the entries shown, once built: "Covers you", sizes, and the order by address (with
        `search`, the filter's keys made in that order off this thread, taken as they are)."""
        self._index = index
        self._covers = self._covering(my_ip)
        if self._sort is not None and self._sort[0] in _BY_INDEX:
            self._rearrange(search)
        elif self.visible:
            self.dataChanged.emit(self.index(0, SIZE), self.index(len(self.visible) - 1, COVERS))

    @property
    def indexed(self) -> bool:
        """Whether the rows are shown with their index (see set_entries)."""
        return self._index is not None

    def _covering(self, my_ip: Address | None) -> list[bool]:
        covers = [False] * len(self.entries)
        for serial in self._index.holding(my_ip) if my_ip is not None and self._index is not None else ():
            covers[serial] = True
        return covers

    # -- filter and sort --------------------------------------------------------------------------

    def set_filter(self, text: str) -> None:
        needle = text.strip().lower()
        if needle == self._needle:
            return
        self.beginResetModel()
        # Typing on: only the shown rows can match (worth it when they are few, see EntrySearch.narrowed).
        narrowing = (
            bool(self._needle) and self._needle in needle and len(self.visible) * 4 < len(self.entries)
        )
        self._needle = needle
        if narrowing:
            self.visible = self._searched().narrowed(self.visible, needle)
        else:
            self._apply_filter()
        self.endResetModel()

    def _searched(self) -> EntrySearch:
        """The filter's keys in the display order, made or rearranged when first needed."""
        search = self._search
        if search is None or search.entries is not self.entries:
            search = EntrySearch(self.entries, self._order)
        elif search.order is not self._order:
            search = search.in_order(self._order)
        self._search = search
        return search

    def _arrange(self, search: EntrySearch | None = None) -> None:
        """Sort the rows as chosen; then the filter's keys follow, unless the order is a stand-in for the
        index's (then the first filter keystroke makes them: the rows show sooner without). A `search` made
        for these entries in the order by address is that order and its keys when the rows are sorted so:
        nothing is done per row here (at 100,000 entries the GUI thread spent ~0.1 s making them)."""
        self._drop_pending()  # a sort of the entries before, or of a coverage before: the rows are sorted here
        by_address = self._sort == (ADDRESS, Qt.SortOrder.AscendingOrder) and self._index is not None
        if by_address and search is not None and search.entries is self.entries:
            self._search, self._order = search, search.order
            self._ordered_shown = self._in_order(self._shown)
            return
        self._order = self._sorted_order()
        if self._sort is None or self._sort[0] not in _BY_INDEX or self._index is not None:
            self._searched()

    def _apply_filter(self) -> None:
        needle, shown = self._needle, self._ordered_shown
        if needle:
            self.visible = self._searched().matching(needle, shown)
        else:
            self.visible = list(self._order if shown is None else compress(self._order, shown))

    def _sorted_order(self) -> list[int]:
        if self._sort is None or (self._sort[0] in _BY_INDEX and self._index is None):
            order = list(range(len(self.entries)))  # by address or size, until the index comes: list order
        else:
            column, direction = self._sort
            descending = direction == Qt.SortOrder.DescendingOrder
            order = serials_in_order(self.entries, _SORTS[column], descending, self._index, self._covers)
        self._ordered_shown = self._in_order_of(order, self._shown)
        return order

    @staticmethod
    def _in_order_of(order: list[int], flags: list[bool] | None) -> list[bool] | None:
        return None if flags is None else list(map(flags.__getitem__, order))

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows by a column (a click on its header). A long list is sorted off the GUI thread: its
        rows stay in their order until the new one is ready, then take it at once (see `_take_arranged`)."""
        self._sort = (column, order)
        if len(self.entries) <= SORT_HERE_UP_TO or (column in _BY_INDEX and self._index is None):
            self._rearrange()
            return
        self._drop_pending()
        # Started once the paints the click left (the header's arrow) are done: each call into Python they
        # make waits for the GIL while the sort holds it, stretching ~5 ms of painting to 40-80 (docs/stack.md).
        # A timer fires after the posted events (the paints); a second call of `sort` for the same click (Qt's
        # sortByColumn makes two) restarts it and one sort is made.
        self._sort_later.start()

    def _start_arranging(self) -> None:
        if self._sort is None:
            return
        column, direction = self._sort
        search = self._search if self._search is not None and self._search.entries is self.entries else None
        descending = direction == Qt.SortOrder.DescendingOrder
        future = arrange_later(self.entries, _SORTS[column], descending, self._index, self._covers, search)
        self._pending = future
        future.add_done_callback(self._announce_arranged)

    def _announce_arranged(self, _future: Future[Arranged]) -> None:
        """On the builder thread (or this one, for a sort dropped before it started): a queued signal."""
        with suppress(RuntimeError):  # the model deleted meanwhile (its window closed): nobody to tell
            self._arranged.emit()

    def _take_arranged(self) -> None:
        """The order sorted off the GUI thread, taken as it is: the rows, the filter and the view follow."""
        future = self._pending
        if future is None or not future.done():  # dropped: a newer sort, or other entries
            return
        self._pending = None
        arranged = future.result()
        self.layoutAboutToBeChanged.emit()
        self._order, self._search = arranged.order, arranged.search
        self._ordered_shown = self._in_order(self._shown)
        self._apply_filter()
        self.layoutChanged.emit()
        self.arranged.emit()

    def _drop_pending(self) -> None:
        self._sort_later.stop()
        if self._pending is not None:
            self._pending.cancel()  # not started yet: the builder thread skips it
            self._pending = None

    def _rearrange(self, search: EntrySearch | None = None) -> None:
        self.layoutAboutToBeChanged.emit()
        self._arrange(search)
        self._apply_filter()
        self.layoutChanged.emit()
        self.arranged.emit()

    # -- Qt's model interface ---------------------------------------------------------------------

    def index(self, row: int, column: int, parent: ModelIndex = QModelIndex()) -> QModelIndex:  # noqa: B008
        # Qt's own asks rowCount and columnCount (two calls into Python) for each of the ~250 cells a paint
        # draws; one call here checks both.
        if 0 <= row < len(self.visible) and 0 <= column < _COLUMN_COUNT and not parent.isValid():
            return self.createIndex(row, column)
        return QModelIndex()

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.visible)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # The view asks for about eight roles per cell on every paint; the ones not served return first.
        if role != _DISPLAY and role != _TOOLTIP:
            return _NUMBER_ALIGNMENT if role == _ALIGNMENT and index.column() in NUMBERS else None
        row = index.row()
        if not index.isValid() or row >= len(self.visible):
            return None
        if role == _TOOLTIP:
            return self._tooltip(self.entries[self.visible[row]], index.column())
        return self.text(row, index.column())

    def text(self, row: int, column: int) -> str:
        """The text of a shown cell (its DisplayRole): what the table's delegate draws, asked directly."""
        position = self.visible[row]
        entry = self.entries[position]
        if column == ADDRESS:
            return entry.cidr
        if column == DESCRIPTION:
            return entry.description
        if column == EXPIRES:
            expires = entry.expires_at
            if expires is None:
                return ""
            left = expires - time.time()
            return "expired" if entry.expired or left <= 0 else f"in {describe_left(left)}"
        if column == HITS:
            return f"{entry.hit_count:,}"
        if column == LAST_MATCHED:
            matched = entry.last_matched_at
            if not matched:
                return "never"
            since = time.time() - matched
            return "just now" if since < 60 else f"{describe_left(since)} ago"
        if column == CREATED:
            created = entry.created_at
            return _day_of(created) if created else ""
        if column == SIZE:
            interval = interval_of(entry.cidr) if self._index is None else self._index.interval(position)
            if interval is None:
                return ""
            host_bits = BITS[interval[0]] - interval[2]  # below 2⁴⁰ the count is written out
            return f"{1 << host_bits:,}" if host_bits < 40 else "2" + str(host_bits).translate(_SUPERSCRIPT)
        return "✓ you" if self._covers[position] else ""

    @staticmethod
    def _tooltip(entry: Entry, column: int) -> str | None:
        if column == ADDRESS:
            return entry.id
        moment = {
            EXPIRES: entry.expires_at,
            LAST_MATCHED: entry.last_matched_at,
            CREATED: entry.created_at,
        }.get(column)
        if moment:
            return dt.datetime.fromtimestamp(moment).strftime("%Y-%m-%d %H:%M:%S")
        return None

    def entry(self, row: int) -> Entry:
        """The entry shown at a row of the table."""
        return self.entries[self.visible[row]]
