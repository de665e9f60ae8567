"""What the Playground shows before a conversation starts: one example per feature (a streamed answer, an
image, web search, structured output, a function call, and the local model). Choosing one fills the message
box and switches on what it needs; Ctrl+Enter sends it. It goes once a turn is sent, and comes back with an
empty conversation."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import Signal, SignalInstance
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.colours import Ink, ink_label
from app.ui.widgets.rich_text_label import RichTextLabel

from .functions_panel import FunctionsPanel
from .transcript import Transcript


class Playground(Protocol):
    """What the examples use of the Playground tab (which imports this module)."""

    transcript: Transcript
    message: QPlainTextEdit
    web_search: QCheckBox
    structured: QCheckBox
    functions: FunctionsPanel
    settings_requested: SignalInstance

    def attach_file(self, path: Path) -> None: ...


@dataclass(frozen=True)
class Example:
    key: str
    button: str
    says: str  # what it shows, beside the button
    prompt: str = ""


EXAMPLES = (
    Example(
        "stream",
        "Stream an answer",
        "A long answer arrives token by token; Stop (Esc) keeps what came.",
        "Write 300 words about the sea, the sky and the long way home",
    ),
    Example(
        "image",
        "Ask about an image",
        "Attaches the console's icon (paste, drop or Attach… your own).",
        "What is in this image?",
    ),
    Example(
        "search",
        "Search the web",
        "Switches Web search on: the queries and the sources show under the answer.",
        "How do CIDR ranges work?",
    ),
    Example(
        "structured",
        "Get structured output",
        "Switches Structured output on: the answer is JSON, checked against the schema.",
        "What is the capital of France? Say how confident you are.",
    ),
    Example(
        "function",
        "Call a function",
        "Offers get_weather: the model calls it, and you type the output (or use the saved one).",
        "Use get_weather for Paris please",
    ),
    Example(
        "local",
        "Use a local model",
        "The Local sandbox answers with a simulated model; its profile can run GGUF weights offline instead.",
    ),
)


class EmptyState(QWidget):
    """The examples, as buttons a person can Tab to, each with a line saying what it shows."""

    chosen = Signal(str)  # the example's key

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, objectName="empty_state")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        intro = ink_label(
            RichTextLabel(
                "<b>Try the Playground:</b> pick an example, it fills the message box below (Ctrl+Enter sends "
                "it); or type your own."
            ),
            Ink.MUTED,
        )
        layout.addWidget(intro)
        grid = QGridLayout()
        grid.setColumnStretch(1, 1)
        grid.setVerticalSpacing(2)  # all six in sight in the conversation of an 800x600 window
        self.buttons: dict[str, QPushButton] = {}
        for row, example in enumerate(EXAMPLES):
            button = QPushButton(example.button, objectName=f"example_{example.key}")
            button.clicked.connect(lambda _=False, key=example.key: self.chosen.emit(key))
            says = QLabel(example.says)
            says.setWordWrap(True)
            grid.addWidget(button, row, 0)
            grid.addWidget(says, row, 1)
            self.buttons[example.key] = button
        layout.addLayout(grid)


def install_empty_state(tab: Playground) -> EmptyState:
    """Put the examples on the tab's empty conversation, shown while it has no turn (see Transcript)."""
    state = EmptyState()
    tab.transcript.set_empty_state(state)
    state.chosen.connect(lambda key: try_example(tab, key))
    return state


def try_example(tab: Playground, key: str) -> None:
    """Fill the message box with the example `key`, switching on what it needs."""
    example = next(example for example in EXAMPLES if example.key == key)
    if key == "local":
        tab.settings_requested.emit()  # the profile's engine and weights file
        return
    if key == "image":
        from app.common.assets import ICON

        tab.attach_file(ICON)
    elif key == "search":
        tab.web_search.setChecked(True)
    elif key == "structured":
        tab.structured.setChecked(True)
    elif key == "function":
        from app.core.playground.functions import EXAMPLES as FUNCTIONS

        if "get_weather" not in [function.name for function in tab.functions.functions]:
            tab.functions.add_definition(next(f for f in FUNCTIONS if f.name == "get_weather"))
        tab.functions.enabled.setChecked(True)
    tab.message.setPlainText(example.prompt)
    tab.message.moveCursor(QTextCursor.MoveOperation.End)
    tab.message.setFocus()
