"""What the Functions panel shows once its switch is on: the functions offered, the buttons that edit them,
the examples and library menus, and how the model may call them (tool_choice, parallel calls, rounds)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.playground.status import DEFAULT_MAX_ROUNDS
from app.ui.colours import Ink, css

from .options_boxes import ChoiceBox, WholeBox


class FunctionsBody(QWidget):
    """The panel's controls, built the first time they are wanted (the panel says when): a launch shows the
    panel closed, and most sessions never open it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="functions_body")
        self.list = QListWidget(objectName="function_list")
        self.list.setAccessibleName("Functions offered")
        self.list.setMaximumHeight(
            4 * self.list.fontMetrics().lineSpacing() + 12
        )  # four functions, then it scrolls
        self.add_button: QPushButton = QPushButton("Add…", objectName="function_add")
        self.edit_button: QPushButton = QPushButton("Edit…", objectName="function_edit")
        self.duplicate_button: QPushButton = QPushButton("Duplicate", objectName="function_duplicate")
        self.remove_button: QPushButton = QPushButton("Remove", objectName="function_remove")
        self.examples = QToolButton(text="Examples ▾", objectName="function_examples")
        self.examples.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.examples_menu = QMenu(self.examples)
        self.examples.setMenu(self.examples_menu)
        self.library_button = QToolButton(text="Library ▾", objectName="function_library")
        self.library_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.library_menu = QMenu(self.library_button)
        self.library_button.setMenu(self.library_menu)

        self.choice = ChoiceBox(objectName="tool_choice")
        self.choice.setAccessibleName("Tool choice")
        self.choice.setToolTip(
            "auto: the model decides · none: no calls · required: at least one call · a function: that one"
        )
        self.parallel: QCheckBox = QCheckBox("Parallel calls", objectName="parallel_calls", checked=True)
        self.max_rounds = WholeBox(objectName="max_rounds", minimum=1, maximum=50, value=DEFAULT_MAX_ROUNDS)
        self.max_rounds.setAccessibleName("Most rounds of calls in one turn")
        self.max_rounds.setToolTip("The loop stops after this many rounds of calls in one turn")
        self.answer_with_saved: QCheckBox = QCheckBox(
            "Answer with saved outputs", objectName="answer_with_saved", checked=True
        )
        self.answer_with_saved.setToolTip(
            "A call to a function with a saved output is answered with it by itself; the others wait for you"
        )

        self.support: QLabel = QLabel(objectName="function_support")
        self.support.setWordWrap(True)
        self.support.setStyleSheet(css(Ink.CAUTION))
        self.support.hide()

        inner = QVBoxLayout(self)
        inner.setContentsMargins(18, 0, 0, 0)
        inner.addWidget(self.support)
        inner.addWidget(self.list)
        inner.addLayout(
            _row(
                self.add_button,
                self.edit_button,
                self.duplicate_button,
                self.remove_button,
                self.examples,
                self.library_button,
            )
        )
        # Two short rows, not one long one: at 800 px the pane has ~560 px and no sideways scroll.
        inner.addLayout(_row(QLabel("Tool choice"), self.choice, self.parallel))
        inner.addLayout(_row(QLabel("Rounds at most"), self.max_rounds, self.answer_with_saved))


def _row(*widgets: QWidget) -> QHBoxLayout:
    """`widgets` side by side from the left, without margins, the rest of the row left empty."""
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    for widget in widgets:
        row.addWidget(widget)
    row.addStretch(1)
    return row
