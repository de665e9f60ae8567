"""The entries table: a thin Qt model over the list the AllowlistService holds. It never fetches."""

from __future__ import annotations

import datetime as dt
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from app.netrules import Address, parse_client_ip

COLUMNS = ("Address or range", "Description", "Created", "Addresses", "Covers you")
ModelIndex = QModelIndex | QPersistentModelIndex


def _interval(cidr: str) -> tuple[int, int, int]:
    """(version, start, end) from a canonical 'address/prefix', without ipaddress objects (fast at 100k)."""
    address, _, prefix = cidr.partition("/")
    parsed = parse_client_ip(address)
    if parsed is None:
        return 0, 0, -1
    bits = parsed.max_prefixlen
    start = int(parsed)
    return parsed.version, start, start | ((1 << (bits - int(prefix or bits))) - 1)


class EntriesModel(QAbstractTableModel):
    SortRole = Qt.ItemDataRole.UserRole + 1

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[dict[str, Any]] = []
        self._intervals: list[tuple[int, int, int]] = []
        self._covers: list[bool] = []

    def set_entries(self, entries: list[dict[str, Any]], my_ip: Address | None) -> None:
        self.beginResetModel()
        self.entries = entries
        self._intervals = [_interval(entry["cidr"]) for entry in entries]
        self.set_my_ip(my_ip, reset=False)
        self.endResetModel()

    def set_my_ip(self, my_ip: Address | None, reset: bool = True) -> None:
        if my_ip is None:
            self._covers = [False] * len(self.entries)
        else:
            version, value = my_ip.version, int(my_ip)
            self._covers = [v == version and start <= value <= end for v, start, end in self._intervals]
        if reset:
            self.dataChanged.emit(self.index(0, 4), self.index(len(self.entries) - 1, 4))

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.entries)

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        entry = self.entries[index.row()]
        column = index.column()
        version, start, end = self._intervals[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return entry["cidr"]
            if column == 1:
                return entry.get("description", "")
            if column == 2:
                created = entry.get("created_at")
                return dt.datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M") if created else ""
            if column == 3:
                return (
                    f"{end - start + 1:,}"
                    if end - start < 10**12
                    else f"2^{(end - start + 1).bit_length() - 1}"
                )
            return "✓ you" if self._covers[index.row()] else ""
        if role == self.SortRole:
            return (
                (version, start),
                entry.get("description", ""),
                entry.get("created_at", 0),
                end - start,
                self._covers[index.row()],
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return entry["id"]
        return None

    def entry(self, row: int) -> dict[str, Any]:
        return self.entries[row]


class EntriesFilter(QSortFilterProxyModel):
    """Filter as you type over address and description; sort on real values, not on display strings."""

    def __init__(self) -> None:
        super().__init__()
        self.setSortRole(EntriesModel.SortRole)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._needle = ""

    def set_text(self, text: str) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.10+; invalidateFilter() is deprecated there
            self.beginFilterChange()
            self._needle = text.strip().lower()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._needle = text.strip().lower()
            self.invalidateFilter()

    def filterAcceptsRow(self, row: int, parent: ModelIndex) -> bool:
        if not self._needle:
            return True
        model = self.sourceModel()
        assert isinstance(model, EntriesModel)
        entry = model.entries[row]
        return self._needle in entry["cidr"] or self._needle in entry.get("description", "").lower()

    def lessThan(self, left: ModelIndex, right: ModelIndex) -> bool:
        return self.sourceModel().data(left, self.sortRole()) < self.sourceModel().data(
            right, self.sortRole()
        )
