"""The request's options under the conversation: instructions, sampling parameters, reasoning effort (for
reasoning models only), structured output, functions."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.reasoning import REASONING_EFFORTS, is_reasoning_model
from app.services.session.ui_state import PlaygroundState
from app.ui.colours import Ink, css

from .functions_panel import FunctionsPanel
from .options_boxes import ChoiceBox, DecimalBox, WholeBox

if TYPE_CHECKING:
    from app.core.playground.schema_check import SchemaCheck
    from app.core.playground.turns import RequestOptions

EXAMPLE_SCHEMA = json.dumps(
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "confidence": {"type": "number"}},
        "required": ["answer", "confidence"],
        "additionalProperties": False,
    },
    indent=2,
)


def _spin(spin: QDoubleSpinBox, low: float, high: float, step: float) -> QDoubleSpinBox:
    spin.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # not WheelFocus: the wheel alone never focuses it
    spin.setRange(low, high)
    spin.setSingleStep(step)
    spin.setValue(low)
    spin.setSpecialValueText("default")  # the value below the range means "let the service decide"
    return spin


class OptionsPanel(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.instructions = QLineEdit(objectName="instructions", placeholderText="Instructions (optional)")
        self.instructions.setAccessibleName("Instructions")
        self.params_toggle = QToolButton(text="Parameters ▸", checkable=True, objectName="params_toggle")
        self.params = QWidget(objectName="params")
        form = QFormLayout(self.params)
        self.temperature = _spin(DecimalBox(objectName="temperature"), -0.1, 2.0, 0.1)
        self.top_p = _spin(DecimalBox(objectName="top_p"), -0.05, 1.0, 0.05)
        self.max_tokens = WholeBox(objectName="max_tokens", minimum=15, maximum=1_000_000, value=15)
        self.max_tokens.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.max_tokens.setSpecialValueText("default")
        form.addRow("Temperature", self.temperature)
        form.addRow("Top p", self.top_p)
        form.addRow("Max output tokens", self.max_tokens)
        self.params.hide()
        self.params_toggle.toggled.connect(self._toggle_params)

        # Beside the toggle, not folded under it: for a think model the effort is the parameter that matters.
        self.reasoning_model = False
        self.reasoning_label = QLabel("Reasoning effort")
        self.reasoning_effort = ChoiceBox(objectName="reasoning_effort")
        self.reasoning_effort.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.reasoning_effort.addItem("default", None)
        for effort in REASONING_EFFORTS:
            self.reasoning_effort.addItem(effort, effort)
        self.reasoning_effort.setToolTip(
            "How long the model reasons before it answers (sent as reasoning.effort). "
            "default: not sent, the service decides."
        )
        self.reasoning_label.setBuddy(self.reasoning_effort)
        toggles = QHBoxLayout()
        toggles.setContentsMargins(0, 0, 0, 0)
        toggles.addWidget(self.params_toggle)
        toggles.addSpacing(12)
        toggles.addWidget(self.reasoning_label)
        toggles.addWidget(self.reasoning_effort)
        toggles.addStretch(1)
        self.set_model("")

        self.structured = QCheckBox("Structured output (JSON schema)", objectName="structured")
        self.schema_edit = QPlainTextEdit(EXAMPLE_SCHEMA, objectName="schema")
        self.schema_edit.setMaximumHeight(140)
        self.schema_edit.setTabChangesFocus(True)  # Tab moves on (the schema is indented with spaces)
        self.schema_status = QLabel(objectName="schema_status")
        self.schema_edit.hide()
        self.schema_status.hide()
        self.structured.toggled.connect(self._toggle_schema)
        self.schema_edit.textChanged.connect(self._check_schema)

        self.functions = FunctionsPanel()  # its library is handed over by the tab

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.instructions)
        layout.addLayout(toggles)
        switches = QHBoxLayout()
        switches.setContentsMargins(0, 0, 0, 0)
        switches.addWidget(self.structured)
        switches.addSpacing(12)
        switches.addWidget(self.functions.enabled)
        switches.addStretch(1)
        layout.addWidget(self.params)
        layout.addLayout(switches)
        for widget in (self.schema_edit, self.schema_status, self.functions):
            layout.addWidget(widget)

    def set_model(self, model: str) -> None:
        """The effort is offered for reasoning models only; the choice is kept for the next one."""
        self.reasoning_model = is_reasoning_model(model)
        self.reasoning_label.setVisible(self.reasoning_model)
        self.reasoning_effort.setVisible(self.reasoning_model)

    def _toggle_params(self, shown: bool) -> None:
        self.params.setVisible(shown)
        self.params_toggle.setText("Parameters ▾" if shown else "Parameters ▸")

    def _toggle_schema(self, shown: bool) -> None:
        self.schema_edit.setVisible(shown)
        self.schema_status.setVisible(shown)
        self._check_schema()

    def schema(self) -> SchemaCheck:
        """The schema typed in the editor, or the reason it cannot be used."""
        from app.core.playground.schema_check import check_schema  # with the first check, not the launch

        return check_schema(self.schema_edit.toPlainText())

    def _check_schema(self) -> None:
        # Only while the schema is shown (turning structured output on checks it): the check loads the
        # jsonschema library, which a launch restoring a saved schema does not need before its tabs are usable.
        if not self.structured.isChecked():
            return
        check = self.schema()
        self.schema_status.setText(check.message)
        self.schema_status.setStyleSheet(css(Ink.GOOD if check.ok else Ink.BAD))

    def temperature_value(self) -> float | None:
        return None if self.temperature.value() < 0 else round(self.temperature.value(), 2)

    def top_p_value(self) -> float | None:
        return None if self.top_p.value() < 0 else round(self.top_p.value(), 2)

    def max_tokens_value(self) -> int | None:
        return None if self.max_tokens.value() < 16 else self.max_tokens.value()

    def reasoning_effort_value(self) -> str | None:
        """The effort to send: None for the default, and always for a model that does not reason."""
        return self.reasoning_effort.currentData() if self.reasoning_model else None

    def request_options(self, model: str, web_search: bool, chain_on_server: bool) -> RequestOptions:
        """The options the next request is sent with: this panel's, and the tab's model and switches."""
        from app.core.playground.turns import RequestOptions

        return RequestOptions(
            model=model,
            instructions=self.instructions.text(),
            temperature=self.temperature_value(),
            top_p=self.top_p_value(),
            max_output_tokens=self.max_tokens_value(),
            web_search=web_search,
            schema=self.schema().schema if self.structured.isChecked() else None,
            chain_on_server=chain_on_server,
            reasoning_effort=self.reasoning_effort_value(),
            tools=self.functions.tool_settings(),
        )

    # -- kept between launches ------------------------------------------------------------------------

    def save_into(self, state: PlaygroundState) -> None:
        """The options as the next launch restores them (the effort chosen even while a model that does
        not reason hides it)."""
        state.instructions = self.instructions.text()
        state.temperature = self.temperature_value()
        state.top_p = self.top_p_value()
        state.max_output_tokens = self.max_tokens_value()
        state.reasoning_effort = self.reasoning_effort.currentData()
        state.structured = self.structured.isChecked()
        schema = self.schema_edit.toPlainText()
        state.schema = "" if schema == EXAMPLE_SCHEMA else schema

    def restore(self, state: PlaygroundState) -> None:
        self.instructions.setText(state.instructions)
        # Each control's minimum reads "default".
        for spin, value in ((self.temperature, state.temperature), (self.top_p, state.top_p)):
            spin.setValue(spin.minimum() if value is None else value)
        tokens = state.max_output_tokens
        self.max_tokens.setValue(self.max_tokens.minimum() if tokens is None else tokens)
        effort = self.reasoning_effort.findData(state.reasoning_effort) if state.reasoning_effort else 0
        self.reasoning_effort.setCurrentIndex(max(0, effort))
        self.schema_edit.setPlainText(state.schema or EXAMPLE_SCHEMA)
        self.structured.setChecked(state.structured)
        # A parameter that is set is shown: folded away, it would change answers unseen.
        if any(value is not None for value in (state.temperature, state.top_p, state.max_output_tokens)):
            self.params_toggle.setChecked(True)
