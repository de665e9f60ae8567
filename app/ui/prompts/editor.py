"""The prompt being edited: its name, model, instructions and message with `{{variables}}`, its options,
tools and output format, and the note a save gives its new version."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.core.prompts.draft import PromptDraft, StoredPrompt
from app.core.prompts.options import VersionOptions

from .options_form import OptionsForm


class PromptEditor(QWidget):
    """Every save is a new version: the stored ones are never changed."""

    save_requested = Signal()
    changed = Signal()  # the text changed: the variables may have

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prompt_id: str | None = None  # None: a new prompt
        self.heading = QLabel("New prompt", objectName="prompt_heading")
        self.name = QLineEdit(objectName="prompt_name", placeholderText="A name to find it by")
        self.model = QLineEdit(objectName="prompt_model", placeholderText="Any model")
        self.instructions = QPlainTextEdit(objectName="prompt_instructions")
        self.instructions.setPlaceholderText("Instructions, with {{variables}}")
        self.message = QPlainTextEdit(objectName="prompt_message")
        self.message.setPlaceholderText("The message, with {{variables}}")
        self.options = OptionsForm()
        self.note = QLineEdit(objectName="prompt_note", placeholderText="What this version changes")
        self.save_button = QPushButton("&Save as new version", objectName="prompt_save")
        # The fields scroll inside the editor (the options opened are taller than a small window has room
        # for); the heading and Save stay in view.
        fields = QWidget()
        form = QFormLayout(fields)
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("&Name", self.name)
        form.addRow("&Model", self.model)
        form.addRow("&Instructions", self.instructions)
        form.addRow("Messa&ge", self.message)
        form.addRow(self.options)
        form.addRow("N&ote", self.note)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea(objectName="prompt_fields", widgetResizable=True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(fields)
        layout.addWidget(self.heading)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.save_button)
        self.save_button.clicked.connect(self.save_requested)
        for edit in (self.instructions, self.message):
            edit.textChanged.connect(self.changed)
        self.model.textChanged.connect(lambda text: self.options.set_model(text.strip()))
        self.start_new()

    def draft(self) -> PromptDraft:
        return PromptDraft(
            self.name.text(),
            self.instructions.toPlainText(),
            self.message.toPlainText(),
            self.model.text().strip(),
            self.options.values().options(),
        )

    def start_new(self) -> None:
        self.prompt_id = None
        self.heading.setText("New prompt")
        self.save_button.setText("&Save prompt")
        for edit in (self.name, self.model, self.note):
            edit.clear()
        self.instructions.clear()
        self.message.clear()
        self.options.show_values(VersionOptions())

    def show_version(self, stored: StoredPrompt) -> None:
        """The version's text to edit; a save makes the version after the prompt's latest."""
        draft = PromptDraft.of(stored)
        self.prompt_id = stored.id
        self.heading.setText(f"{stored.name} — version {stored.version}")
        self.save_button.setText("&Save as new version")
        self.name.setText(draft.name)
        self.model.setText(draft.model)
        self.instructions.setPlainText(draft.instructions)
        self.message.setPlainText(draft.message)
        self.options.show_values(VersionOptions.read(draft.options))
        self.note.clear()
