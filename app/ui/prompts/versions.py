"""The open prompt's versions, newest first, each with its note; two chosen are compared line by line."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.prompts.diff import version_diff
from app.core.prompts.draft import StoredPrompt


def version_label(stored: StoredPrompt) -> str:
    when = datetime.fromtimestamp(stored.created_at).strftime("%Y-%m-%d %H:%M") if stored.created_at else ""
    note = f" — {stored.note}" if stored.note else ""
    return f"Version {stored.version}  {when}{note}"


class VersionsPanel(QWidget):
    version_opened = Signal(StoredPrompt)  # double-clicked (or Enter)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.versions: list[StoredPrompt] = []
        self.list = QListWidget(objectName="prompt_versions")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.compare_button = QPushButton("Co&mpare two versions", objectName="prompt_compare", enabled=False)
        self.diff = QPlainTextEdit(objectName="prompt_diff", readOnly=True)
        self.diff.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.diff.setPlaceholderText("Choose two versions and compare them.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("&Versions", buddy=self.list))
        layout.addWidget(self.list, 1)
        layout.addWidget(self.compare_button)
        layout.addWidget(self.diff, 2)
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.list.itemActivated.connect(self._activated)
        self.compare_button.clicked.connect(self.compare)

    def show_versions(self, versions: list[StoredPrompt]) -> None:
        self.versions = versions
        self.list.clear()
        self.diff.clear()
        for stored in versions:
            item = QListWidgetItem(version_label(stored))
            item.setData(Qt.ItemDataRole.UserRole, stored.version)
            self.list.addItem(item)

    def chosen(self) -> list[StoredPrompt]:
        rows = sorted(self.list.row(item) for item in self.list.selectedItems())
        return [self.versions[row] for row in rows]

    def _selection_changed(self) -> None:
        self.compare_button.setEnabled(len(self.chosen()) == 2)

    def _activated(self, item: QListWidgetItem) -> None:
        self.version_opened.emit(self.versions[self.list.row(item)])

    def compare(self) -> None:
        chosen = self.chosen()
        if len(chosen) != 2:
            return
        newer, older = chosen  # the list is newest first
        lines = version_diff(older, newer)
        self.diff.setPlainText("\n".join(lines) if lines else "The two versions say the same.")
