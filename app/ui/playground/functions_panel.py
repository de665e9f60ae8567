"""The Functions panel beside web search and structured output: the functions a turn offers the model, how
it may call them (tool_choice, parallel calls), the bound on rounds, and the library they come from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.status import DEFAULT_MAX_ROUNDS
from app.services.playground.function_library import FunctionLibrary
from app.ui.colours import Ink, css

from .options_boxes import ChoiceBox, WholeBox

if TYPE_CHECKING:
    # The dialog is loaded at the first Add or Edit, the functions' module when the panel is first used
    # (an example or a function added, a turn sent): a launch builds the panel closed.
    from app.core.playground.functions import FunctionDefinition, ToolSettings

    from .function_dialog import FunctionDialog


class FunctionsPanel(QWidget):
    changed = Signal()  # the functions or how they may be called changed

    def __init__(self, library: FunctionLibrary | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self._functions: list[FunctionDefinition] = []
        self.enabled = QCheckBox("Functions", objectName="functions")
        self.enabled.setToolTip("Offer functions (tools of type function) that the model may call")
        self.body = QWidget(objectName="functions_body")
        self.list = QListWidget(objectName="function_list")
        self.list.setAccessibleName("Functions offered")
        self.list.setMaximumHeight(
            4 * self.list.fontMetrics().lineSpacing() + 12
        )  # four functions, then it scrolls
        self.list.itemDoubleClicked.connect(lambda _item: self.edit_selected())
        self.list.currentRowChanged.connect(lambda _row: self._enable_row_buttons())

        self.add_button = QPushButton("Add…", objectName="function_add")
        self.add_button.clicked.connect(self.add_function)
        self.edit_button = QPushButton("Edit…", objectName="function_edit")
        self.edit_button.clicked.connect(self.edit_selected)
        self.duplicate_button = QPushButton("Duplicate", objectName="function_duplicate")
        self.duplicate_button.clicked.connect(self.duplicate_selected)
        self.remove_button = QPushButton("Remove", objectName="function_remove")
        self.remove_button.clicked.connect(self.remove_selected)
        self.examples = QToolButton(text="Examples ▾", objectName="function_examples")
        self.examples.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.examples_menu = QMenu(self.examples)
        self.examples_menu.aboutToShow.connect(self._fill_examples_menu)
        self.examples.setMenu(self.examples_menu)
        self.library_button = QToolButton(text="Library ▾", objectName="function_library")
        self.library_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.library_menu = QMenu(self.library_button)
        self.library_menu.aboutToShow.connect(self._fill_library_menu)
        self.library_button.setMenu(self.library_menu)

        self.choice = ChoiceBox(objectName="tool_choice")
        self.choice.setAccessibleName("Tool choice")
        self.choice.setToolTip(
            "auto: the model decides · none: no calls · required: at least one call · a function: that one"
        )
        self.parallel = QCheckBox("Parallel calls", objectName="parallel_calls", checked=True)
        self.max_rounds = WholeBox(objectName="max_rounds", minimum=1, maximum=50, value=DEFAULT_MAX_ROUNDS)
        self.max_rounds.setAccessibleName("Most rounds of calls in one turn")
        self.max_rounds.setToolTip("The loop stops after this many rounds of calls in one turn")
        self.answer_with_saved = QCheckBox(
            "Answer with saved outputs", objectName="answer_with_saved", checked=True
        )
        self.answer_with_saved.setToolTip(
            "A call to a function with a saved output is answered with it by itself; the others wait for you"
        )

        self.support = QLabel(objectName="function_support")
        self.support.setWordWrap(True)
        self.support.setStyleSheet(css(Ink.CAUTION))
        self.support.hide()

        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        for widget in (
            self.add_button,
            self.edit_button,
            self.duplicate_button,
            self.remove_button,
            self.examples,
            self.library_button,
        ):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        # Two short rows, not one long one: at 800 px the pane has ~560 px and no sideways scroll.
        how = QHBoxLayout()
        how.setContentsMargins(0, 0, 0, 0)
        how.addWidget(QLabel("Tool choice"))
        how.addWidget(self.choice)
        how.addWidget(self.parallel)
        how.addStretch(1)
        loop = QHBoxLayout()
        loop.setContentsMargins(0, 0, 0, 0)
        loop.addWidget(QLabel("Rounds at most"))
        loop.addWidget(self.max_rounds)
        loop.addWidget(self.answer_with_saved)
        loop.addStretch(1)
        inner = QVBoxLayout(self.body)
        inner.setContentsMargins(18, 0, 0, 0)
        inner.addWidget(self.support)
        inner.addWidget(self.list)
        inner.addLayout(buttons)
        inner.addLayout(how)
        inner.addLayout(loop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        # The switch (`enabled`) is placed by the options panel, on the row of the other switches: closed, the
        # panel takes no height of its own (at 1400x900 every option must fit beside the conversation).
        layout.addWidget(self.body)
        self.body.hide()
        self.enabled.toggled.connect(self._toggle)
        for signal in (self.parallel.toggled, self.answer_with_saved.toggled):
            signal.connect(lambda _=None: self.changed.emit())
        self.choice.currentIndexChanged.connect(lambda _=None: self.changed.emit())
        self.max_rounds.valueChanged.connect(lambda _=None: self.changed.emit())
        self._refresh()

    # -- what the turn sends ----------------------------------------------------------------------

    @property
    def functions(self) -> list[FunctionDefinition]:
        return list(self._functions)

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
        self.support.setText(
            f"{model} does not call functions: offered, they are not called."
            if calls_functions is False
            else ""
        )
        self.support.setVisible(calls_functions is False)

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

    def _names(self) -> list[str]:
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
        self.body.setVisible(shown)
        self.enabled.setText(f"Functions ({len(self._functions)})" if self._functions else "Functions")
        self.changed.emit()

    def _refresh(self, select: int = -1) -> None:
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
        self.enabled.setText(f"Functions ({len(self._functions)})" if self._functions else "Functions")
        self._enable_row_buttons()

    def _enable_row_buttons(self) -> None:
        selected = self.list.currentRow() >= 0
        for button in (self.edit_button, self.duplicate_button, self.remove_button):
            button.setEnabled(selected)
