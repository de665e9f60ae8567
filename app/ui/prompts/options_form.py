"""A prompt version's options in the editor: temperature, the answer's length, the reasoning effort (for a
model that reasons), the function tools offered (the Playground's function library, and any the version
already has) and the output format, folded to one line of what is set until opened."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.reasoning import REASONING_EFFORTS, is_reasoning_model
from app.core.prompts.options import VersionOptions

DEFAULT = "default"  # each box's lowest value: the service decides


class OptionsForm(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QPushButton(objectName="prompt_options_toggle", checkable=True)
        self.toggle.setStyleSheet("text-align: left; padding: 3px 6px")
        # Its line of what is set gives way in a narrow editor (the whole line is in the tooltip).
        self.toggle.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.body = QWidget(objectName="prompt_options")
        self.temperature = QDoubleSpinBox(objectName="prompt_temperature", minimum=-0.1, maximum=2.0)
        self.temperature.setSingleStep(0.1)
        self.max_tokens = QSpinBox(objectName="prompt_max_tokens", minimum=15, maximum=1_000_000)
        self.temperature.setSpecialValueText(DEFAULT)
        self.temperature.setValue(self.temperature.minimum())
        self.max_tokens.setSpecialValueText(DEFAULT)
        self.max_tokens.setValue(self.max_tokens.minimum())
        self.effort = QComboBox(objectName="prompt_effort")
        self.effort.addItem(DEFAULT, None)
        for effort in REASONING_EFFORTS:
            self.effort.addItem(effort, effort)
        self.tools = QListWidget(objectName="prompt_tools")
        self.tools.setMaximumHeight(90)
        self.output = QComboBox(objectName="prompt_output")
        self.output.addItems(["Text", "JSON schema"])
        self.schema_name = QLineEdit("answer", objectName="prompt_schema_name")
        self.schema = QPlainTextEdit(objectName="prompt_schema")
        self.schema.setPlaceholderText('{"type": "object", "properties": {…}}')
        self.schema.setMaximumHeight(110)
        self.form = QFormLayout(self.body)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.form.addRow("Tem&perature", self.temperature)
        self.form.addRow("Max output to&kens", self.max_tokens)
        self.form.addRow("Reasoning e&ffort", self.effort)
        self.form.addRow("Too&ls", self.tools)
        self.form.addRow("O&utput", self.output)
        self.form.addRow("Schema n&ame", self.schema_name)
        self.form.addRow("Sc&hema", self.schema)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle)
        layout.addWidget(self.body)
        self._model = ""
        self._kept: Mapping[str, Any] = {}
        self._library: list[dict[str, Any]] = []
        self.toggle.toggled.connect(self._fold)
        self.output.currentIndexChanged.connect(self._show_rows)
        for signal in (
            self.temperature.valueChanged,
            self.max_tokens.valueChanged,
            self.effort.currentIndexChanged,
            self.tools.itemChanged,
            self.output.currentIndexChanged,
            self.schema.textChanged,
            self.schema_name.textChanged,
        ):
            signal.connect(self._changed)
        self._fold(False)
        self._show_rows()

    # -- what is shown ------------------------------------------------------------------------------------

    def _fold(self, opened: bool) -> None:
        self.body.setVisible(opened)
        self._label()

    def _label(self) -> None:
        summary = self.values().summary() if not self.problem() else "the schema is not valid JSON"
        self.toggle.setText(("Options ▾" if self.toggle.isChecked() else "Options ▸") + f"  {summary}")
        self.toggle.setToolTip(summary or "No option set: the service's defaults")

    def _changed(self) -> None:
        self._label()
        self.changed.emit()

    def _show_rows(self) -> None:
        structured = self.output.currentIndex() == 1
        self.form.setRowVisible(self.schema, structured)
        self.form.setRowVisible(self.schema_name, structured)
        self.form.setRowVisible(self.effort, is_reasoning_model(self._model))

    def set_model(self, model: str) -> None:
        """The effort is offered for a model that reasons only (and sent for it only)."""
        self._model = model
        self._show_rows()
        self._label()

    def offer_tools(self, tools: list[dict[str, Any]]) -> None:
        """The functions a version may offer (the function library's), besides those it has already."""
        self._library = tools
        self._fill(self._chosen_tools())

    def _fill(self, chosen: list[dict[str, Any]]) -> None:
        """The chosen tools first, checked, then the library's others."""
        names = {str(tool.get("name")) for tool in chosen}
        self.tools.blockSignals(True)
        self.tools.clear()
        for tool in [*chosen, *(tool for tool in self._library if str(tool.get("name")) not in names)]:
            item = QListWidgetItem(str(tool.get("name")))
            item.setData(Qt.ItemDataRole.UserRole, tool)
            item.setToolTip(str(tool.get("description") or ""))
            checked = str(tool.get("name")) in names
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            self.tools.addItem(item)
        self.tools.blockSignals(False)

    # -- the values ---------------------------------------------------------------------------------------

    def _chosen_tools(self) -> list[dict[str, Any]]:
        items = (self.tools.item(index) for index in range(self.tools.count()))
        return [
            dict(item.data(Qt.ItemDataRole.UserRole))
            for item in items
            if item.checkState() == Qt.CheckState.Checked
        ]

    def _schema(self) -> dict[str, Any] | None:
        if self.output.currentIndex() != 1:
            return None
        try:
            schema = json.loads(self.schema.toPlainText())
        except ValueError:
            return None
        return schema if isinstance(schema, dict) else None

    def problem(self) -> str:
        """Why the options cannot be saved ("" when they can)."""
        if self.output.currentIndex() == 1 and self._schema() is None:
            return "The output's schema is not a JSON object: fix it, or choose Text."
        return ""

    def values(self) -> VersionOptions:
        temperature, tokens = self.temperature.value(), self.max_tokens.value()
        return VersionOptions(
            None if temperature < 0 else round(temperature, 2),
            None if tokens < 16 else tokens,
            self.effort.currentData() if is_reasoning_model(self._model) else None,
            tuple(self._chosen_tools()),
            self._schema(),
            self.schema_name.text().strip() or "answer",
            self._kept,
        )

    def show_values(self, options: VersionOptions) -> None:
        self._kept = options.kept
        temperature = options.temperature
        self.temperature.setValue(self.temperature.minimum() if temperature is None else temperature)
        tokens = options.max_output_tokens
        self.max_tokens.setValue(self.max_tokens.minimum() if tokens is None else tokens)
        self.effort.setCurrentIndex(max(0, self.effort.findData(options.reasoning_effort)))
        self._fill([dict(tool) for tool in options.tools])
        self.output.setCurrentIndex(1 if options.schema is not None else 0)
        self.schema_name.setText(options.schema_name)
        self.schema.setPlainText(json.dumps(options.schema, indent=2) if options.schema is not None else "")
        self._label()
