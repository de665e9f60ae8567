"""The keys table: a thin Qt model over the keys the KeysService read, sortable by every column (by the
value behind it: times as numbers, "never" before any time). It never fetches."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from app.core.security.key_views import ago, date_text, permissions_text
from app.services.security.keys import ApiKey

COLUMNS = ("Name", "Key", "Owner", "Created", "Last used", "Permissions", "Requests")
NAME, KEY, OWNER, CREATED, LAST_USED, PERMISSIONS, REQUESTS = range(len(COLUMNS))
ModelIndex = QModelIndex | QPersistentModelIndex
_SORT: dict[int, Callable[[ApiKey], Any]] = {
    NAME: lambda key: key.name.casefold(),
    KEY: lambda key: key.redacted_value,
    OWNER: lambda key: key.owner_name.casefold(),
    CREATED: lambda key: key.created_at or 0,
    LAST_USED: lambda key: key.last_used_at or -1,
    PERMISSIONS: lambda key: permissions_text(key.permissions),
    REQUESTS: lambda key: key.request_count or 0,
}


class KeysModel(QAbstractTableModel):
    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.keys: list[ApiKey] = []
        self.in_use: set[str] = set()  # ids of the keys this console uses: marked in the Name column
        self._clock = clock
        self._order: tuple[int, Qt.SortOrder] = (CREATED, Qt.SortOrder.AscendingOrder)

    def set_keys(self, keys: Sequence[ApiKey], in_use: set[str]) -> None:
        self.beginResetModel()
        self.keys, self.in_use = list(keys), in_use
        self._sorted()
        self.endResetModel()

    def key_at(self, row: int) -> ApiKey | None:
        return self.keys[row] if 0 <= row < len(self.keys) else None

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.keys)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        key = self.key_at(index.row())
        if key is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(key, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == LAST_USED:
                return date_text(key.last_used_at) or "never used"
            if column == CREATED:
                return date_text(key.created_at)
            if column == NAME and key.id in self.in_use:
                return "This console uses this key."
            return key.id
        if role == Qt.ItemDataRole.TextAlignmentRole and column == REQUESTS:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        return None

    def _text(self, key: ApiKey, column: int) -> str:
        now = self._clock()
        match column:
            case 0:
                name = key.name or "(no name)"
                return f"{name} (this console)" if key.id in self.in_use else name
            case 1:
                return key.redacted_value
            case 2:
                return key.owner_name
            case 3:
                return ago(key.created_at, now) if key.created_at else ""
            case 4:
                return ago(key.last_used_at, now)
            case 5:
                return permissions_text(key.permissions)
            case _:
                return "" if key.request_count is None else f"{key.request_count:,}"

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self._order = (column, order)
        self._sorted()
        self.layoutChanged.emit()

    def _sorted(self) -> None:
        column, order = self._order
        self.keys.sort(key=_SORT[column], reverse=order == Qt.SortOrder.DescendingOrder)
