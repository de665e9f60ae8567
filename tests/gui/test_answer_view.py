"""The streaming answer view keeps Qt's paragraphs short, without changing the text."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.ui.playground.turn_view import SOFT_BLOCK_CHARS, AnswerView


def test_long_paragraph_is_split_into_display_blocks_only(qtbot: QtBot) -> None:
    view = AnswerView()
    qtbot.addWidget(view)
    words = ["word"] * 3000
    for start in range(0, len(words), 50):
        view.append_plain(" " + " ".join(words[start : start + 50]))
    view.append_plain("\n\nA new paragraph.")
    document = view.document()
    lengths = [document.findBlockByNumber(i).length() - 1 for i in range(document.blockCount())]
    assert max(lengths) <= SOFT_BLOCK_CHARS
    assert document.toPlainText().replace("\u2029", "\n").split() == [*words, "A", "new", "paragraph."]
