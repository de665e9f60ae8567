"""The Playground's "Prompt…" picker: the organization's stored prompts (their latest versions) with a
search; the one chosen is what the next Send comes from."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.prompt_turns import StoredPrompt
from app.services.prompts.library import PromptLibrary
from app.services.session.session import ConsoleSession

SEARCH_PAUSE_MS = 250  # a search is sent once typing pauses, as in the Prompts tab


class PromptPicker(QDialog):
    chosen = Signal(StoredPrompt)

    def __init__(self, session: ConsoleSession, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="prompt_picker")
        self.setWindowTitle("Use a stored prompt")
        self.library = PromptLibrary(session, self)
        self.search = QLineEdit(placeholderText="Search prompts", clearButtonEnabled=True)
        self.list = QListWidget(objectName="prompt_picker_list")
        self.list.setAccessibleName("Stored prompts")
        self.status = QLabel("Reading the prompts…", wordWrap=True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.use_button = buttons.addButton("&Use", QDialogButtonBox.ButtonRole.AcceptRole)
        self.use_button.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        timer = QTimer(self, singleShot=True, interval=SEARCH_PAUSE_MS)
        self.search.textChanged.connect(lambda _: timer.start())
        timer.timeout.connect(lambda: self.library.refresh(self.search.text().strip()))
        self.list.currentRowChanged.connect(lambda row: self.use_button.setEnabled(row >= 0))
        self.list.itemActivated.connect(lambda _item: self.accept())
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.library.listed.connect(self._fill)
        self.library.failed.connect(self.status.setText)
        self.resize(420, 360)
        self.library.refresh()

    def _fill(self) -> None:
        self.list.clear()
        for stored in self.library.prompts:
            variables = ", ".join(stored.variables) or "no variables"
            item = QListWidgetItem(f"{stored.name}  (v{stored.version}) — {variables}")
            item.setData(Qt.ItemDataRole.UserRole, stored)
            item.setToolTip(stored.note or stored.name)
            self.list.addItem(item)
        if self.library.prompts:
            self.list.setCurrentRow(0)
            self.status.setText(
                "The latest version of the prompt chosen is used; the Prompts tab has the others."
            )
        else:
            self.status.setText("No prompt matches." if self.library.search else "No stored prompts yet.")

    def accept(self) -> None:
        if self.list.currentRow() < 0:
            return
        self.chosen.emit(self.list.currentItem().data(Qt.ItemDataRole.UserRole))
        super().accept()
