"""Add or edit one function: its name, description, parameters (a JSON Schema, checked as typed), strict mode
and the saved output that answers its calls by itself."""

from __future__ import annotations

import json
from collections.abc import Iterable

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.functions import (
    EMPTY_PARAMETERS,
    DefinitionCheck,
    FunctionDefinition,
    check_definition,
)
from app.ui.colours import Ink, css


class FunctionDialog(QDialog):
    """OK is offered only for a definition the service would accept; the problem is said as it is typed."""

    def __init__(
        self,
        definition: FunctionDefinition | None,
        taken: Iterable[str],
        parent: QWidget | None = None,
        in_library: bool = False,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit function" if definition else "Add function")
        self.setObjectName("function_dialog")
        self._taken = [name for name in taken if definition is None or name != definition.name]
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.name = QLineEdit(objectName="function_name", placeholderText="get_weather")
        self.description = QLineEdit(
            objectName="function_description", placeholderText="What it does, for the model to decide when"
        )
        self.parameters = QPlainTextEdit(objectName="function_parameters")
        self.parameters.setFont(mono)
        self.parameters.setMinimumHeight(120)
        self.parameters.setTabChangesFocus(True)  # Tab moves on (the schema is indented with spaces)
        self.strict = QCheckBox("Strict (arguments always match the schema)", objectName="function_strict")
        self.mock_output = QPlainTextEdit(objectName="function_mock_output")
        self.mock_output.setFont(mono)
        self.mock_output.setPlaceholderText(
            'Optional: an output that answers its calls, e.g. {"temperature": 18}'
        )
        self.mock_output.setMaximumHeight(80)
        self.mock_output.setTabChangesFocus(True)
        self.keep = QCheckBox("Keep in my library", objectName="function_keep", checked=in_library)
        self.keep.setToolTip("The library is yours, across conversations: Functions > Library adds from it.")
        self.check = QLabel(objectName="function_check")
        self.check.setWordWrap(True)
        for widget, name in (
            (self.name, "Name"),
            (self.description, "Description"),
            (self.parameters, "Parameters (JSON Schema)"),
            (self.mock_output, "Saved output"),
        ):
            widget.setAccessibleName(name)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Description", self.description)
        form.addRow("Parameters", self.parameters)
        form.addRow("", self.strict)
        form.addRow("Saved output", self.mock_output)
        form.addRow("", self.keep)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.check)
        layout.addWidget(self.buttons)

        shown = definition or FunctionDefinition("", parameters=EMPTY_PARAMETERS)
        self.name.setText(shown.name)
        self.description.setText(shown.description)
        self.parameters.setPlainText(json.dumps(dict(shown.parameters), indent=2))
        self.strict.setChecked(shown.strict)
        self.mock_output.setPlainText(shown.mock_output)
        for signal in (self.name.textChanged, self.description.textChanged, self.strict.toggled):
            signal.connect(self._check)
        self.parameters.textChanged.connect(self._check)
        self.mock_output.textChanged.connect(self._check)
        self.resize(560, 480)
        self._check()

    def result_check(self) -> DefinitionCheck:
        return check_definition(
            self.name.text(),
            self.description.text(),
            self.parameters.toPlainText(),
            self.strict.isChecked(),
            self.mock_output.toPlainText(),
            self._taken,
        )

    def definition(self) -> FunctionDefinition | None:
        return self.result_check().definition

    def _check(self) -> None:
        check = self.result_check()
        self.check.setText(check.problem)
        self.check.setStyleSheet(css(Ink.GOOD if check.ok else Ink.BAD))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(check.ok)
