"""The turn's selectable texts: laid out as plain labels until pointed at, and nothing moves when they switch."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from app.ui.widgets.selectable_label import SelectableLabel

TEXTS = [
    "ƒ get_weather · call call_12 · round 1",
    '{\n  "city": "Paris",\n  "unit": "celsius"\n}',
    "Arguments match the schema.\nOutput (the saved output):",
    "A question about the weather in Paris, asked at some length " * 6,
    "averyveryverylongwordwithoutanyspacesthatcannotwrapatallbutmustbeshownwhole" * 2,
    "<b>not bold</b> & <i>not italic</i>",
]


@pytest.mark.parametrize("mono", [False, True])
@pytest.mark.parametrize("text", TEXTS)
def test_the_height_for_a_width_is_the_same_before_and_after_selection_is_switched_on(
    qtbot: QtBot, text: str, mono: bool
) -> None:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if mono else None
    label = SelectableLabel(text, "message", font)
    qtbot.addWidget(label)
    widths = (90, 160, 300, 640, 1200)
    before = [label.heightForWidth(width) for width in widths]
    minimum = label.minimumSizeHint()
    label.make_selectable()
    assert label.selectable
    assert [label.heightForWidth(width) for width in widths] == before
    assert label.minimumSizeHint() == minimum


def test_text_is_never_markup(qtbot: QtBot) -> None:
    label = SelectableLabel("<b>not bold</b>")
    qtbot.addWidget(label)
    assert label.textFormat() == Qt.TextFormat.PlainText and label.wordWrap()


def test_pointing_at_the_label_lets_the_person_select_with_the_mouse(qtbot: QtBot) -> None:
    page = QWidget()
    layout = QVBoxLayout(page)
    label = SelectableLabel("Select these words with the mouse", "message")
    layout.addWidget(label)
    qtbot.addWidget(page)
    page.resize(400, 100)
    page.show()
    qtbot.waitExposed(page)
    assert not label.selectable  # a plain label until pointed at
    middle = label.height() // 2
    qtbot.mouseMove(label, QPoint(2, middle))
    qtbot.waitUntil(lambda: label.selectable)
    qtbot.mousePress(label, Qt.MouseButton.LeftButton, pos=QPoint(1, middle))
    qtbot.mouseMove(label, QPoint(label.width() - 2, middle))
    qtbot.mouseRelease(label, Qt.MouseButton.LeftButton, pos=QPoint(label.width() - 2, middle))
    assert label.selectedText().startswith("Select these words")


def test_a_click_that_came_without_the_mouse_entering_still_selects(qtbot: QtBot) -> None:
    label = SelectableLabel("Words to select")
    qtbot.addWidget(label)
    label.show()
    qtbot.waitExposed(label)
    qtbot.mouseDClick(label, Qt.MouseButton.LeftButton, pos=QPoint(4, label.height() // 2))
    assert label.selectable
    assert label.selectedText() == "Words"


def test_a_selection_from_code_switches_selection_on(qtbot: QtBot) -> None:
    label = SelectableLabel("Find the zebra here")
    qtbot.addWidget(label)
    label.setSelection(9, 5)
    assert label.selectable and label.selectedText() == "zebra"
