"""The Playground's sidebar: saved conversations with search; open, rename in place, compare on another
model, export, delete."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QHelpEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from app.models.conversations import ConversationsModel
from app.services.playground.conversations import ConversationsService

# The rows read at once; the rest a page at a time as the list is scrolled to its end (Qt's fetchMore). A
# thousand saved conversations were all read at launch (the newest 500 of them, the rest only by search).
PAGE = 100


class ConversationRows(QStyledItemDelegate):
    """Qt's own drawing of the rows (no `paint` here); what the model's strings do not say comes from its
    summaries: the whole title to edit (a re-run shows "⇄ model: title") and the tooltip."""

    def __init__(self, model: ConversationsModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._model = model

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:
        if isinstance(editor, QLineEdit) and index.isValid():
            editor.setText(self._model.summaries[index.row()].title)
            return
        super().setEditorData(editor, index)

    def helpEvent(
        self,
        event: QHelpEvent,
        view: QAbstractItemView,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        if event.type() == QEvent.Type.ToolTip and index.isValid():
            QToolTip.showText(
                event.globalPos(), self._model.tooltip(index.row()), view.viewport(), option.rect
            )
            return True
        return super().helpEvent(event, view, option, index)


class ConversationSidebar(QWidget):
    open_requested = Signal(str)  # a conversation id
    new_requested = Signal()
    compare_requested = Signal(str)  # re-run this conversation on another model

    def __init__(self, service: ConversationsService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.current_id: str | None = None
        self.model = ConversationsModel()
        self.model.rename_requested.connect(service.rename)

        # A short hint and a button no wider than its word: the sidebar is ~130 px at 800x600, and the list
        # beside says what is searched.
        self.search = QLineEdit(placeholderText="Search", clearButtonEnabled=True)
        self.search.setAccessibleName("Search conversations")
        self.search.setToolTip("Search conversations")
        self.new_button = QPushButton("New")
        self.new_button.setMinimumWidth(0)
        self.new_button.setMaximumWidth(self.new_button.fontMetrics().horizontalAdvance("New") + 18)
        # Narrower than a title's first twenty characters, the list steps aside instead (the window's _fit_sidebar).
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 20)
        self.new_button.setToolTip("Start a new conversation (Ctrl+N)")
        self.new_button.setShortcut(QKeySequence.StandardKey.New)
        self.list = QListView(objectName="conversation_list")
        self.list.setAccessibleName("Conversations")
        self.list.setModel(self.model)
        self.list.setItemDelegate(ConversationRows(self.model, self.list))
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.list.setUniformItemSizes(True)  # one row height: no per-row size queries in long lists
        # Titles are cut in the middle to the sidebar's width (no sideways scrolling): "My name…vice-think"
        # and "My name…ighthouse" stay apart in a narrow sidebar; the tooltip has the whole title.
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.setToolTip("Click to open; F2 renames; right-click for more")
        # F2 renames the selected conversation wherever the focus is in the Playground, not only in the list.
        # (A window shortcut of the sidebar: Qt leaves it out while the sidebar is hidden, on the Security tab.)
        rename = QShortcut(QKeySequence(Qt.Key.Key_F2), self)
        rename.setContext(Qt.ShortcutContext.WindowShortcut)
        rename.activated.connect(self.rename_selected)

        # Under the list it acts on; the Playground's top row has no room for it in an 800 px window.
        self.compare_button = QPushButton("Compare…", objectName="compare")
        self.compare_button.setToolTip(
            "Re-run the selected conversation on another model, answers side by side (Ctrl+Shift+M)"
        )

        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.compare_button)

        self.search.textChanged.connect(self.refresh)
        self.new_button.clicked.connect(self.new_requested)
        self.compare_button.clicked.connect(self._compare_selected)
        self.list.selectionModel().selectionChanged.connect(self._enable_compare)
        self.list.activated.connect(self._open)
        self.list.clicked.connect(self._open)
        self.list.customContextMenuRequested.connect(self._menu)
        delete = QAction("Delete", self.list)
        delete.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(self._delete_selected)
        self.list.addAction(delete)
        service.changed.connect(self.refresh)
        service.saved.connect(self._saved)
        self.refresh()

    def refresh(self) -> None:
        query = self.search.text()
        first = self.service.summaries(query, PAGE)
        # A short first page is the whole list: no next page to offer (Qt asks for one at once while the
        # view has room, which would be a query for nothing at every launch).
        more = len(first) == PAGE
        self.model.set_summaries(
            first, (lambda last: self.service.summaries(query, PAGE, after=last)) if more else None
        )
        self.mark_current(self.current_id)
        self._enable_compare()  # a model reset clears the selection without a signal

    def _saved(self, conversation_id: str) -> None:
        """One conversation was started or saved a turn: its row alone (a search shown is read again, as
        the conversation may match it now)."""
        summary = None if self.search.text().strip() else self.service.summary(conversation_id)
        if summary is None:
            self.refresh()
            return
        self.model.put(summary)
        self.mark_current(self.current_id)
        self._enable_compare()

    def rename_selected(self) -> None:
        """Edit the title of the conversation chosen in the list, or else the open one, in place (F2)."""
        index = self.list.currentIndex()
        if not index.isValid() and self.current_id:
            index = self.model.index(self.model.row_of(self.current_id))
        if index.isValid():
            self.list.setFocus()
            self.list.edit(index)

    def _enable_compare(self) -> None:
        self.compare_button.setEnabled(self.list.selectionModel().hasSelection())

    def _compare_selected(self) -> None:
        """The conversation selected in the list (the open one is selected)."""
        selected = self.list.selectionModel().selectedIndexes()
        if selected:
            self.compare_requested.emit(self._id_at(selected[0]) or "")

    def mark_current(self, conversation_id: str | None) -> None:
        """Select the open conversation in the list, without opening it again."""
        self.current_id = conversation_id
        row = self.model.row_of(conversation_id) if conversation_id else -1
        selection = self.list.selectionModel()
        if row < 0:
            selection.clearSelection()
            return
        index = self.model.index(row)
        selection.setCurrentIndex(index, selection.SelectionFlag.ClearAndSelect)

    def _id_at(self, index: QModelIndex) -> str | None:
        return self.model.summaries[index.row()].id if index.isValid() else None

    def _open(self, index: QModelIndex) -> None:
        conversation_id = self._id_at(index)
        if conversation_id and conversation_id != self.current_id:
            self.current_id = conversation_id
            self.open_requested.emit(conversation_id)

    def _menu(self, position: QPoint) -> None:
        menu = self.menu_for(self.list.indexAt(position))
        if menu is not None:
            menu.popup(self.list.viewport().mapToGlobal(position))

    def menu_for(self, index: QModelIndex) -> QMenu | None:
        """The right-click menu of a row."""
        conversation_id = self._id_at(index)
        if conversation_id is None:
            return None
        menu = QMenu(self)
        menu.addAction("Open", lambda: self._open(index))
        menu.addAction("Rename", lambda: self.list.edit(index))
        menu.addAction("Compare on another model…", lambda: self.compare_requested.emit(conversation_id))
        menu.addSeparator()
        menu.addAction("Export as Markdown…", lambda: self.export(conversation_id, "md"))
        menu.addAction("Export as JSON…", lambda: self.export(conversation_id, "json"))
        menu.addSeparator()
        menu.addAction("Delete…", lambda: self.confirm_delete(conversation_id))
        return menu

    def export(self, conversation_id: str, kind: str) -> None:
        conversation = self.service.load(conversation_id)
        if conversation is None:
            return
        stem = "".join(c if c.isalnum() or c in " -_" else "_" for c in conversation.summary.title).strip()
        suggested = Path.home() / f"{stem or 'conversation'}.{kind}"
        filters = "Markdown (*.md)" if kind == "md" else "JSON (*.json)"
        from PySide6.QtWidgets import QFileDialog  # dialogs load when first asked for, not at launch

        path, _ = QFileDialog.getSaveFileName(self, "Export conversation", str(suggested), filters)
        if path:
            self.service.export(conversation_id, Path(path))

    def _delete_selected(self) -> None:
        conversation_id = self._id_at(self.list.currentIndex())
        if conversation_id:
            self.confirm_delete(conversation_id)

    def confirm_delete(self, conversation_id: str) -> None:
        row = self.model.row_of(conversation_id)
        title = self.model.summaries[row].title if row >= 0 else "this conversation"
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Delete conversation",
            f"Delete “{title}”? Its turns are removed from this computer; the service keeps what it stored.",
            QMessageBox.StandardButton.Cancel,
            self,
        )
        box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.buttonClicked.connect(
            lambda button: (
                self._deleted(conversation_id)
                if box.buttonRole(button) == QMessageBox.ButtonRole.DestructiveRole
                else None
            )
        )
        box.open()

    def _deleted(self, conversation_id: str) -> None:
        self.service.delete(conversation_id)
        if conversation_id == self.current_id:
            self.current_id = None
            self.new_requested.emit()
