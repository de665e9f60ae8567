"""The Prompts tab: the library (a list with search), the prompt being edited, its versions with a diff of
two, and a form for its variables with a Send that answers from the version shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.core.evals.sent import SentRequest
from app.core.prompts.draft import PromptDraft, StoredPrompt
from app.core.prompts.options import as_edited
from app.services.prompts.library import PromptLibrary
from app.services.session.session import ConsoleSession

from .editor import PromptEditor

if TYPE_CHECKING:
    from .code_dialog import PromptCodeDialog
    from .eval_dialog import EvalDialog
from .variables import VariablesForm
from .versions import VersionsPanel

SEARCH_PAUSE_MS = 250  # a search is sent once typing pauses, not at every key


class PromptsTab(QWidget):
    # A version, the values of its variables and a model ("": the prompt's own), to send from in the
    # Playground: the main window's open_prompt_in_playground takes it there.
    playground_requested = Signal(StoredPrompt, dict, str)
    open_in_playground = Signal(SentRequest)  # an eval cell's request, as it was sent

    def __init__(self, session: ConsoleSession, library: PromptLibrary | None = None) -> None:
        super().__init__(objectName="prompts_tab")
        self.library = library or PromptLibrary(session, self)
        self.shown: StoredPrompt | None = None  # the version in the editor
        self.search = QLineEdit(
            objectName="prompt_search", placeholderText="Search prompts", clearButtonEnabled=True
        )
        self.list = QListWidget(objectName="prompt_list")
        self.new_button = QPushButton("&New prompt", objectName="prompt_new")
        self.evaluate_button = QPushButton("E&valuate…", objectName="prompt_evaluate", enabled=False)
        self.eval_dialog: EvalDialog | None = None
        self.code_dialog: PromptCodeDialog | None = None
        self.session = session
        self.editor = PromptEditor()
        self.versions = VersionsPanel()
        self.variables = VariablesForm()
        self.send_button = QPushButton("Sen&d", objectName="prompt_send")
        self.code_button = QPushButton("Get &code", objectName="prompt_code")
        self.playground_button = QPushButton("Use in &Playground", objectName="prompt_use_in_playground")
        self.playground_button.setToolTip(
            "Send from this version in the Playground, the values typed here kept"
        )
        self._wanted_version = ""  # open_version's version, shown once the prompt's versions are read
        self.answer_from = QLabel("", objectName="prompt_answer_from", wordWrap=True)
        self.answer = QPlainTextEdit(objectName="prompt_answer", readOnly=True)
        self.answer.setPlaceholderText("The answer to a Send shows here.")
        self.status = QLabel("", objectName="prompts_status", wordWrap=True)
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_PAUSE_MS)
        self._build()
        self._connect()
        session.client_changed.connect(self.reload)  # another profile: another organization's prompts
        if session.client is not None:
            self.reload()

    def _build(self) -> None:
        left = QWidget()
        column = QVBoxLayout(left)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.search)
        column.addWidget(self.list, 1)
        column.addWidget(self.new_button)
        column.addWidget(self.evaluate_button)
        trying = QGroupBox("Try this version")
        try_layout = QVBoxLayout(trying)
        try_layout.addWidget(self.variables)
        row = QHBoxLayout()
        row.addWidget(self.send_button)
        row.addWidget(self.code_button)
        row.addWidget(self.playground_button)
        row.addWidget(self.answer_from, 1)
        try_layout.addLayout(row)
        try_layout.addWidget(self.answer, 1)
        side = QSplitter(Qt.Orientation.Vertical)
        side.addWidget(self.versions)
        side.addWidget(trying)
        splitter = QSplitter(Qt.Orientation.Horizontal, objectName="prompts_splitter")
        splitter.addWidget(left)
        splitter.addWidget(self.editor)
        splitter.addWidget(side)
        splitter.setStretchFactor(0, 1)
        splitter.setStretchFactor(1, 2)
        splitter.setStretchFactor(2, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)

    def _connect(self) -> None:
        library = self.library
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self._search_timer.timeout.connect(lambda: library.refresh(self.search.text().strip()))
        self.list.currentItemChanged.connect(self._prompt_chosen)
        self.new_button.clicked.connect(self._new)
        self.evaluate_button.clicked.connect(self.open_evals)
        self.editor.save_requested.connect(self._save)
        self.editor.changed.connect(self._text_changed)
        self.editor.options.toggle.toggled.connect(self._offer_functions)
        self.versions.version_opened.connect(self._show)
        self.send_button.clicked.connect(self._send)
        self.code_button.clicked.connect(self.show_code)
        self.playground_button.clicked.connect(self._use_in_playground)
        library.listed.connect(self._fill_list)
        library.versions_read.connect(self._versions_read)
        library.saved.connect(lambda made: self.status.setText(f"Saved {made.name}, version {made.version}."))
        library.failed.connect(self.status.setText)
        library.answered.connect(self._answered)

    def reload(self) -> None:
        self.library.refresh(self.search.text().strip())

    def _fill_list(self) -> None:
        current = self.shown.id if self.shown else None
        self.list.blockSignals(True)
        self.list.clear()
        for stored in self.library.prompts:
            item = QListWidgetItem(f"{stored.name}  (v{stored.version})")
            item.setData(Qt.ItemDataRole.UserRole, stored.id)
            item.setToolTip(stored.note or stored.name)
            self.list.addItem(item)
            if stored.id == current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        if not self.library.prompts:
            self.status.setText(
                "No prompt matches." if self.library.search else "No prompts yet: write one and save it."
            )

    def _prompt_chosen(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            self.library.open(str(item.data(Qt.ItemDataRole.UserRole)))

    def _versions_read(self) -> None:
        self.versions.show_versions(self.library.versions)
        self.evaluate_button.setEnabled(bool(self.library.versions))
        if self.library.versions:
            wanted = [stored for stored in self.library.versions if stored.version == self._wanted_version]
            self._show((wanted or self.library.versions)[0])
        self._wanted_version = ""

    def open_version(self, prompt_id: str, version: str) -> None:
        """Show this version of the prompt (a Playground turn's "from prompt NAME vN")."""
        self._wanted_version = version
        self.library.open(prompt_id)

    def _use_in_playground(self) -> None:
        shown = self._saved_shown()
        if shown is not None:
            self.playground_requested.emit(shown, self.variables.values(), self.editor.model.text().strip())

    def _show(self, stored: StoredPrompt) -> None:
        self.shown = stored
        self.editor.show_version(stored)
        self.answer.clear()
        self.answer_from.clear()

    def open_evals(self) -> None:
        """The Evals window on the open prompt's versions (imported here: the tab's first screen has no use
        for it)."""
        from app.services.prompts.evals import EvalService

        from .eval_dialog import EvalDialog

        if self.eval_dialog is not None:
            self.eval_dialog.close()
            self.eval_dialog.deleteLater()
        service = EvalService(self.session, self)
        self.eval_dialog = EvalDialog(
            service, list(self.library.versions), list(self.session.model_details), self
        )
        self.eval_dialog.open_in_playground.connect(self.open_in_playground)
        self.eval_dialog.show()

    def _new(self) -> None:
        self.shown = None
        self.evaluate_button.setEnabled(False)
        self.list.clearSelection()
        self.versions.show_versions([])
        self.editor.start_new()
        self.editor.name.setFocus()

    def _save(self) -> None:
        problem = self.editor.options.problem()
        if problem:
            self.status.setText(problem)
            return
        self.library.save(self.editor.draft(), self.editor.note.text(), self.editor.prompt_id)

    def _offer_functions(self, opened: bool) -> None:
        """The Playground's function library, read again each time the options open (it may have changed
        there since)."""
        if opened:
            from app.services.playground.function_library import FunctionLibrary

            library = FunctionLibrary(self.session.data_dir, self.session.bus)
            self.editor.options.offer_tools([dict(d.tool()) for d in library.definitions])

    def _text_changed(self) -> None:
        self.variables.set_names(self.editor.draft().variables)

    def _saved_shown(self) -> StoredPrompt | None:
        """The version shown while the editor still says what it says; None (the status says why) otherwise."""
        draft = self.editor.draft()
        saved = PromptDraft.of(self.shown) if self.shown else None
        if saved is None or (saved.instructions, saved.message, as_edited(saved.options)) != (
            draft.instructions,
            draft.message,
            dict(draft.options),
        ):
            self.status.setText(
                "Save the changes first: Send, Get code and the Playground use a saved version."
            )
            return None
        return self.shown

    def show_code(self) -> None:
        shown = self._saved_shown()
        if shown is None:
            return
        from .code_dialog import PromptCodeDialog

        snippets = self.library.code(shown, self.variables.values(), self.editor.model.text().strip())
        self.code_dialog = PromptCodeDialog(snippets, f"{shown.name}, version {shown.version}", self)
        self.code_dialog.show()

    def _send(self) -> None:
        shown = self._saved_shown()
        if shown is None:
            return
        self.answer.clear()
        self.answer_from.setText("Sending…")
        self.library.send(shown, self.variables.values(), self.editor.model.text().strip())

    def _answered(self, text: str, source: str) -> None:
        self.status.clear()
        self.answer_from.setText(f"From {source}")
        self.answer.setPlainText(text)
