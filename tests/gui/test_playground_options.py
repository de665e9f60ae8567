"""The options under the conversation: the reasoning effort a think model is sent, and every option coming
back as it was left on the next launch."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QWidget
from pytestqt.qtbot import QtBot

from app.bootstrap import Paths, make_settings
from app.ui.main_window import MainWindow
from app.ui.playground.dialogs import TextTabsDialog
from tests.gui.reach import body_of, child
from tests.gui.test_playground import click_box, send, wait_done
from tests.gui.test_playground_conversations import close_console, open_console


def choose(qtbot: QtBot, combo: QComboBox, text: str) -> None:
    """Pick an entry as a person does from the keyboard: focus the box, arrow up or down to it."""
    target = combo.findText(text)
    assert target >= 0, f"{text} is not offered"
    combo.setFocus()
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up)


def test_reasoning_effort_is_offered_for_think_models_and_sent(qtbot: QtBot, console: MainWindow) -> None:
    tab = console.playground
    panel = tab.options_panel
    qtbot.waitUntil(lambda: tab.model.count() > 0)
    choose(qtbot, tab.model, "service-pro")
    assert not panel.reasoning_effort.isVisibleTo(tab)
    choose(qtbot, tab.model, "service-think")
    assert panel.reasoning_effort.isVisibleTo(tab) and panel.reasoning_effort.currentText() == "default"
    choose(qtbot, panel.reasoning_effort, "high")
    send(qtbot, tab, "Why is the sky blue?")
    wait_done(qtbot, tab)
    turn = tab.service.turns[0]
    assert turn.status == "completed", turn.error
    assert body_of(turn)["reasoning"] == {"effort": "high"}
    assert turn.response is not None and turn.response.reasoning is not None
    assert turn.response.reasoning.effort == "high"  # the sandbox repeats what it was asked

    choose(
        qtbot, tab.model, "service-pro"
    )  # the choice stays, but a model that does not reason is not sent it
    assert not panel.reasoning_effort.isVisibleTo(tab)
    send(qtbot, tab, "And the sunset?")
    wait_done(qtbot, tab, 2)
    assert "reasoning" not in body_of(tab.service.turns[1])

    choose(qtbot, tab.model, "service-think-mini")
    assert panel.reasoning_effort.currentText() == "high"
    choose(qtbot, panel.reasoning_effort, "default")
    send(qtbot, tab, "Briefly?")
    wait_done(qtbot, tab, 3)
    assert "reasoning" not in body_of(tab.service.turns[2])  # default: not sent, the service decides
    tab.inspect(0)  # what was sent, as the inspector shows it
    assert '"effort": "high"' in child(tab, TextTabsDialog).page_text("Request")


def type_into(qtbot: QtBot, spin: QAbstractSpinBox, text: str) -> None:
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Tab)


def test_every_option_comes_back_on_the_next_launch(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    panel = tab.options_panel
    qtbot.waitUntil(lambda: tab.model.count() > 0)
    choose(qtbot, tab.model, "service-think-mini")
    qtbot.keyClicks(panel.instructions, "Answer like a sailor")
    qtbot.mouseClick(panel.params_toggle, Qt.MouseButton.LeftButton)
    type_into(qtbot, panel.temperature, "0.3")
    type_into(qtbot, panel.top_p, "0.9")
    type_into(qtbot, panel.max_tokens, "640")
    choose(qtbot, panel.reasoning_effort, "low")
    click_box(qtbot, panel.structured)
    panel.schema_edit.setFocus()
    qtbot.keyClick(panel.schema_edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(panel.schema_edit, '{"type": "object", "required": ["port"]}')
    sent = tab.options()
    window.close()  # as a person quits: the window saves what it looked like
    close_console(qtbot, window)

    again = open_console(qtbot, tmp_path)
    tab = again.playground
    panel = tab.options_panel
    qtbot.waitUntil(lambda: tab.model.currentText() == "service-think-mini")
    assert panel.instructions.text() == "Answer like a sailor"
    assert (panel.temperature.text(), panel.top_p.text(), panel.max_tokens.text()) == ("0.30", "0.90", "640")
    assert panel.params.isVisibleTo(tab)  # set parameters are shown, not folded away
    assert panel.reasoning_effort.isVisibleTo(tab) and panel.reasoning_effort.currentText() == "low"
    assert panel.structured.isChecked() and panel.schema_edit.isVisibleTo(tab)
    assert panel.schema_edit.toPlainText() == '{"type": "object", "required": ["port"]}'
    assert tab.options() == sent  # the next request is the one the person left
    close_console(qtbot, again)


def test_damaged_saved_options_fall_back_to_the_defaults(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    settings = make_settings(Paths.under(tmp_path))  # the file the console reads
    damaged = {
        "model": ["service-pro"],
        "chain": "no",
        "temperature": "hot",
        "top_p": 7,
        "max_output_tokens": 12.5,
        "reasoning_effort": "extreme",
        "structured": 1,
        "schema": None,
        "instructions": {"text": "x"},
    }
    settings.update(lambda saved: setattr(saved.ui, "playground", damaged))
    window = open_console(qtbot, tmp_path)
    tab = window.playground
    panel = tab.options_panel
    assert tab.chain.isChecked() and not tab.web_search.isChecked()
    assert (panel.temperature.text(), panel.top_p.text(), panel.max_tokens.text()) == ("default",) * 3
    assert panel.reasoning_effort.currentText() == "default" and not panel.structured.isChecked()
    assert panel.instructions.text() == "" and '"confidence"' in panel.schema_edit.toPlainText()
    close_console(qtbot, window)


def wheel(widget: QWidget, notches: int) -> None:
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    centre = QPointF(widget.width() / 2, widget.height() / 2)
    event = QWheelEvent(
        centre,
        QPointF(widget.mapToGlobal(centre.toPoint())),
        QPoint(0, 0),
        QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_the_wheel_passing_over_a_value_scrolls_the_pane_not_the_value(
    qtbot: QtBot, console: MainWindow
) -> None:
    tab = console.playground
    panel = tab.options_panel
    qtbot.mouseClick(panel.params_toggle, Qt.MouseButton.LeftButton)
    tab.message.setFocus()
    for box in (panel.temperature, panel.top_p, panel.max_tokens):
        before = box.value()
        wheel(box, 3)
        assert box.value() == before, box.objectName()
    qtbot.mouseClick(panel.temperature, Qt.MouseButton.LeftButton)  # clicked into: the wheel is its own
    assert panel.temperature.hasFocus()
    wheel(panel.temperature, 2)
    assert panel.temperature.value() > panel.temperature.minimum()
