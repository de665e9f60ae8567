"""Above the message box while a stored prompt is in use: which prompt and version (a link that opens it in
the Prompts tab), a field for each of its `{{variables}}`, and why Send waits until every one is filled."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
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


class PromptPanel(QFrame):
    open_requested = Signal(str, str)  # prompt id, version: shown in the Prompts tab

    def __init__(
        self, source: PromptSource, composer: Composer, before: QWidget, parent: QWidget | None = None
    ) -> None:
        """`before`: the control Tab reaches the panel from (the panel's fields, then the message box)."""
        super().__init__(parent, objectName="prompt_panel")
        self.source, self.composer, self.before = source, composer, before
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.fields: dict[str, QLineEdit] = {}
        self._shown: tuple[str, str] | None = None  # the prompt and version the fields are for
        self.heading = QLabel(objectName="prompt_heading", textFormat=Qt.TextFormat.RichText)
        self.heading.linkActivated.connect(lambda _link: self._open())
        self.put_away_button = QPushButton("Stop using prompt", objectName="prompt_put_away")
        self.put_away_button.setToolTip("Send what is typed in the message box alone")
        self.put_away_button.clicked.connect(source.put_away)
        self.form = QFormLayout()
        self.form.setContentsMargins(0, 0, 0, 0)
        self.reason = QLabel(objectName="prompt_reason", wordWrap=True)
        self.reason.setStyleSheet(css(Ink.CAUTION))
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.put_away_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(top)
        layout.addLayout(self.form)
        layout.addWidget(self.reason)
        source.changed.connect(self.sync)
        self.sync()

    def sync(self) -> None:
        use = self.source.use
        self.setVisible(use is not None)
        self.composer.hold_send(self.source.problem())
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
        while self.form.rowCount():
            self.form.removeRow(0)
        self.fields = {}
        for name in names:
            field = QLineEdit(objectName=f"prompt_variable_{name}", placeholderText="required")
            field.setAccessibleName(f"Prompt variable {name}")
            field.setToolTip(f"The value of {{{{{name}}}}} in the prompt (required)")
            field.textChanged.connect(lambda text, name=name: self.source.set_value(name, text))
            label = QLabel(f"&{name}", buddy=field)
            self.form.addRow(label, field)
            self.fields[name] = field
        if not names:
            self.form.addRow(QLabel("This prompt has no {{variables}}.", objectName="prompt_no_variables"))
        tab_chain(self.before, *self.fields.values(), self.put_away_button, self.composer.message)

    def _open(self) -> None:
        if self._shown is not None:
            self.open_requested.emit(*self._shown)
