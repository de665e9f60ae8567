"""The Functions panel beside web search and structured output: the functions a turn offers the model, how
it may call them (tool_choice, parallel calls), the bound on rounds, and the library they come from."""

from __future__ import annotations

import builtins  # the class has a `list` of its own (the functions' list widget)
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.services.playground.function_library import FunctionLibrary

from .options_boxes import ChoiceBox, WholeBox

if TYPE_CHECKING:
    # The dialog is loaded at the first Add or Edit, the functions' module when the panel is first used
    # (an example or a function added, a turn sent): a launch builds the panel closed.
    from app.core.playground.functions import FunctionDefinition, ToolSettings

    from .function_dialog import FunctionDialog
    from .functions_body import FunctionsBody


class FunctionsPanel(QWidget):
    """The Functions switch and, once it is first turned on or its controls are wanted, its body
    (functions_body.py): built at a launch, the closed body was ~1.5 ms of every first frame."""

    changed = Signal()  # the functions or how they may be called changed

    def __init__(self, library: FunctionLibrary | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self._functions: list[FunctionDefinition] = []
        self._body: FunctionsBody | None = None
        self._support_text = ""  # what the model chosen does not do, until the body shows it
        self.enabled = QCheckBox("Functions", objectName="functions")
        self.enabled.setToolTip("Offer functions (tools of type function) that the model may call")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        # The switch (`enabled`) is placed by the options panel, on the row of the other switches: closed, the
        # panel takes no height of its own (at 1400x900 every option must fit beside the conversation).
        self.enabled.toggled.connect(self._toggle)

    @property
    def body(self) -> FunctionsBody:
        """The panel's controls, built (hidden unless the switch is on) the first time they are wanted."""
        if self._body is None:
            from .functions_body import FunctionsBody

            body = self._body = FunctionsBody(self)
            self._layout.addWidget(body)
            body.setVisible(self.enabled.isChecked())  # with its parent: a widget shown without is a window
            body.list.itemDoubleClicked.connect(lambda _item: self.edit_selected())
            body.list.currentRowChanged.connect(lambda _row: self._enable_row_buttons())
            body.add_button.clicked.connect(self.add_function)
            body.edit_button.clicked.connect(self.edit_selected)
            body.duplicate_button.clicked.connect(self.duplicate_selected)
            body.remove_button.clicked.connect(self.remove_selected)
            body.examples_menu.aboutToShow.connect(self._fill_examples_menu)
            body.library_menu.aboutToShow.connect(self._fill_library_menu)
            for signal in (
                body.parallel.toggled,
                body.answer_with_saved.toggled,
                body.choice.currentIndexChanged,
                body.max_rounds.valueChanged,
            ):
                signal.connect(lambda _=None: self.changed.emit())
            body.support.setText(self._support_text)
            body.support.setVisible(bool(self._support_text))
            self._refresh()
        return self._body

    # The body's controls, as the panel's own (the tab and the tests reach them here).
    @property
    def list(self) -> QListWidget:
        return self.body.list

    @property
    def add_button(self) -> QPushButton:
        return self.body.add_button

    @property
    def edit_button(self) -> QPushButton:
        return self.body.edit_button

    @property
    def duplicate_button(self) -> QPushButton:
        return self.body.duplicate_button

    @property
    def remove_button(self) -> QPushButton:
        return self.body.remove_button

    @property
    def examples(self) -> QToolButton:
        return self.body.examples

    @property
    def examples_menu(self) -> QMenu:
        return self.body.examples_menu

    @property
    def library_button(self) -> QToolButton:
        return self.body.library_button

    @property
    def library_menu(self) -> QMenu:
        return self.body.library_menu

    @property
    def choice(self) -> ChoiceBox:
        return self.body.choice

    @property
    def parallel(self) -> QCheckBox:
        return self.body.parallel

    @property
    def max_rounds(self) -> WholeBox:
        return self.body.max_rounds

    @property
    def answer_with_saved(self) -> QCheckBox:
        return self.body.answer_with_saved

    @property
    def support(self) -> QLabel:
        return self.body.support

    # -- what the turn sends ----------------------------------------------------------------------

    @property
    def functions(self) -> builtins.list[FunctionDefinition]:
        return builtins.list(self._functions)

    def tool_settings(self) -> ToolSettings:
        from app.core.playground.functions import ToolChoice, ToolSettings

        if not self.enabled.isChecked() or not self._functions:
            return ToolSettings()
        data = str(self.choice.currentData() or "auto")
        kind, _, forced = data.partition(":")
        choice = ToolChoice(kind)
        return ToolSettings(
            functions=tuple(self._functions),
            choice=choice,
            forced=forced,
            parallel_calls=self.parallel.isChecked(),
            max_rounds=self.max_rounds.value(),
            answer_with_saved=self.answer_with_saved.isChecked(),
        )

    def set_tool_settings(self, settings: ToolSettings) -> None:
        """Show the functions a conversation was sent with (or none)."""
        from app.core.playground.functions import ToolChoice

        self._functions = list(settings.functions)
        self.parallel.setChecked(settings.parallel_calls)
        self.max_rounds.setValue(settings.max_rounds)
        self.answer_with_saved.setChecked(settings.answer_with_saved)
        self._refresh()
        wanted = (
            f"function:{settings.forced}" if settings.choice == ToolChoice.FUNCTION else str(settings.choice)
        )
        self.choice.setCurrentIndex(max(0, self.choice.findData(wanted)))
        self.enabled.setChecked(bool(settings.functions))
        self.changed.emit()

    def set_model_support(self, model: str, calls_functions: bool | None) -> None:
        """Say when the model chosen does not call functions (the server says so for its models)."""
        self._support_text = (
            f"{model} does not call functions: offered, they are not called."
            if calls_functions is False
            else ""
        )
        if self._body is not None:  # otherwise said when the body is built
            self._body.support.setText(self._support_text)
            self._body.support.setVisible(bool(self._support_text))

    # -- editing ----------------------------------------------------------------------------------

    def add_function(self) -> FunctionDialog:
        from .function_dialog import FunctionDialog  # the first Add or Edit loads it, not the launch

        dialog = FunctionDialog(None, self._names(), self)
        dialog.accepted.connect(lambda: self._accepted(dialog, ""))
        dialog.open()
        return dialog

    def edit_selected(self) -> FunctionDialog | None:
        from .function_dialog import FunctionDialog

        row = self.list.currentRow()
        if row < 0:
            return None
        current = self._functions[row]
        in_library = self.library is not None and any(
            item.name == current.name for item in self.library.definitions
        )
        dialog = FunctionDialog(current, self._names(), self, in_library)
        dialog.accepted.connect(lambda: self._accepted(dialog, current.name))
        dialog.open()
        return dialog

    def _accepted(self, dialog: FunctionDialog, replacing: str) -> None:
        definition = dialog.definition()
        if definition is None:
            return
        if dialog.keep.isChecked() and self.library is not None:
            self.library.keep(definition, replacing)
        if replacing:
            row = next(i for i, item in enumerate(self._functions) if item.name == replacing)
            self._functions[row] = definition
            self._refresh(row)
            self.changed.emit()
        else:
            self.add_definition(definition)

    def add_definition(self, definition: FunctionDefinition) -> None:
        """Add a function (an example, one from the library); a name already offered gets a copy's name."""
        from app.core.playground.functions import renamed_copy

        if definition.name in self._names():
            definition = renamed_copy(definition, self._names())
        self._functions.append(definition)
        self.enabled.setChecked(True)
        self._refresh(len(self._functions) - 1)
        self.changed.emit()

    def duplicate_selected(self) -> None:
        from app.core.playground.functions import renamed_copy

        row = self.list.currentRow()
        if row >= 0:
            self.add_definition(renamed_copy(self._functions[row], self._names()))

    def remove_selected(self) -> None:
        row = self.list.currentRow()
        if row < 0:
            return
        del self._functions[row]
        self._refresh(min(row, len(self._functions) - 1))
        self.changed.emit()

    def _names(self) -> builtins.list[str]:
        return [item.name for item in self._functions]

    def _fill_examples_menu(self) -> None:
        """Filled as it opens (the examples are the functions' module's: loaded when first wanted)."""
        from app.core.playground.functions import EXAMPLES

        if self.examples_menu.actions():
            return
        for example in EXAMPLES:
            action = self.examples_menu.addAction(f"{example.name}: {example.description}")
            action.triggered.connect(lambda _=False, chosen=example: self.add_definition(chosen))

    def _fill_library_menu(self) -> None:
        self.library_menu.clear()
        kept = self.library.definitions if self.library is not None else []
        if not kept:
            empty = self.library_menu.addAction("Empty: tick “Keep in my library” when you add or edit one")
            empty.setEnabled(False)
            return
        for definition in kept:
            action = self.library_menu.addAction(f"Add {definition.name}")
            action.setToolTip(definition.description)
            action.triggered.connect(lambda _=False, chosen=definition: self.add_definition(chosen))

    # -- drawing ----------------------------------------------------------------------------------

    def _toggle(self, shown: bool) -> None:
        if shown or self._body is not None:
            self.body.setVisible(shown)
        self.enabled.setText(f"Functions ({len(self._functions)})" if self._functions else "Functions")
        self.changed.emit()

    def _refresh(self, select: int = -1) -> None:
        self.enabled.setText(f"Functions ({len(self._functions)})" if self._functions else "Functions")
        if self._body is None:
            return  # the body fills itself when it is built
        self.list.clear()
        for definition in self._functions:
            item = QListWidgetItem(
                f"{definition.name}"
                + (f" — {definition.description}" if definition.description else "")
                + ("  · saved output" if definition.mock_output else "")
            )
            item.setToolTip(definition.description or definition.name)
            self.list.addItem(item)
        if select >= 0:
            self.list.setCurrentRow(select)
        chosen = self.choice.currentData()
        self.choice.blockSignals(True)
        self.choice.clear()
        for text, data in (("auto", "auto"), ("none", "none"), ("required", "required")):
            self.choice.addItem(text, data)
        for definition in self._functions:
            self.choice.addItem(f"only {definition.name}", f"function:{definition.name}")
        self.choice.setCurrentIndex(max(0, self.choice.findData(chosen)) if chosen is not None else 0)
        self.choice.blockSignals(False)
        self._enable_row_buttons()

    def _enable_row_buttons(self) -> None:
        selected = self.list.currentRow() >= 0
        for button in (self.edit_button, self.duplicate_button, self.remove_button):
            button.setEnabled(selected)
