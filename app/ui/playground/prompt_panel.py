"""Above the message box while a stored prompt is in use: which prompt and version (a link that opens it in
the Prompts tab), a field for each of its `{{variables}}`, and why Send waits until every one is filled."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.services.playground.prompt_source import PromptSource
from app.ui.colours import Ink, css
from app.ui.widgets.keyboard import tab_chain

from .composer import Composer

FIELDS_PER_LINE = 2


class PromptPanel(QFrame):
    open_requested = Signal(str, str)  # prompt id, version: shown in the Prompts tab

    def __init__(
        self, source: PromptSource, composer: Composer, before: QWidget, parent: QWidget | None = None
    ) -> None:
        """`before`: the control Tab reaches the panel from (the panel's fields, then the message box)."""
        super().__init__(parent, objectName="prompt_panel")
        self.source, self.composer, self.before = source, composer, before
        self._placeholder = composer.message.placeholderText()  # the message box's own, without a prompt
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.fields: dict[str, QLineEdit] = {}
        self._shown: tuple[str, str] | None = None  # the prompt and version the fields are for
        self.heading = QLabel(objectName="prompt_heading", textFormat=Qt.TextFormat.RichText)
        self.heading.linkActivated.connect(lambda _link: self._open())
        self.put_away_button = QPushButton("Stop using prompt", objectName="prompt_put_away")
        self.put_away_button.setToolTip("Send what is typed in the message box alone")
        self.put_away_button.clicked.connect(source.put_away)
        self.grid = QWidget()  # the fields, made again for each prompt version
        self.reason = QLabel(objectName="prompt_reason", wordWrap=True)
        self.reason.setStyleSheet(css(Ink.CAUTION))
        # One line for the prompt, why Send waits and the way out; the fields two to a line below: at
        # 800x600 the conversation keeps its room.
        top = QHBoxLayout()
        top.addWidget(self.heading)
        top.addWidget(self.reason, 1)
        top.addWidget(self.put_away_button)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(6, 2, 6, 4)
        self.column.setSpacing(2)
        self.column.addLayout(top)
        self.column.addWidget(self.grid)
        source.changed.connect(self.sync)
        self.sync()

    def sync(self) -> None:
        use = self.source.use
        self.setVisible(use is not None)
        self.composer.hold_send(self.source.problem())
        self.composer.message.setPlaceholderText(
            self._placeholder
            if use is None
            else "Optional: a message after the prompt's (Ctrl+Enter to send)"
        )
        if use is None:
            self._shown = None
            return
        shown = (use.stored.id, use.stored.version)
        if shown != self._shown:
            self._shown = shown
            self._build_fields(use.variables)
        for name, field in self.fields.items():
            if field.text() != use.values.get(name, ""):
                field.setText(use.values.get(name, ""))
        self.heading.setText(f'Prompt: <a href="open">{html.escape(use.label)}</a>')
        self.heading.setToolTip(f"Open {use.label} in the Prompts tab")
        self.reason.setText(self.source.problem())
        self.reason.setVisible(bool(self.reason.text()))

    def _build_fields(self, names: list[str]) -> None:
        grid = QWidget()
        layout = QGridLayout(grid)
        layout.setContentsMargins(0, 0, 0, 0)
        self.fields = {}
        for index, name in enumerate(names):
            field = QLineEdit(objectName=f"prompt_variable_{name}", placeholderText="required")
            field.setAccessibleName(f"Prompt variable {name}")
            field.setToolTip(f"The value of {{{{{name}}}}} in the prompt (required)")
            field.textChanged.connect(lambda text, name=name: self.source.set_value(name, text))
            row, column = divmod(index, FIELDS_PER_LINE)
            layout.addWidget(QLabel(f"&{name}", buddy=field), row, 2 * column)
            layout.addWidget(field, row, 2 * column + 1)
            self.fields[name] = field
        for column in range(FIELDS_PER_LINE):
            layout.setColumnStretch(2 * column + 1, 1)
        if not names:
            layout.addWidget(QLabel("This prompt has no {{variables}}.", objectName="prompt_no_variables"))
        self.column.replaceWidget(self.grid, grid)
        self.grid.deleteLater()
        self.grid = grid
        tab_chain(self.before, *self.fields.values(), self.put_away_button, self.composer.message)

    def _open(self) -> None:
        if self._shown is not None:
            self.open_requested.emit(*self._shown)
