"""The options under the conversation: the reasoning effort a think model is sent, and every option coming
back as it was left on the next launch."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.ui.playground.dialogs import TextTabsDialog
from tests.gui.test_playground import send, wait_done


def choose(qtbot, combo, text: str) -> None:
    """Pick an entry as a person does from the keyboard: focus the box, arrow up or down to it."""
    target = combo.findText(text)
    assert target >= 0, f"{text} is not offered"
    combo.setFocus()
    while combo.currentIndex() != target:
        qtbot.keyClick(combo, Qt.Key.Key_Down if combo.currentIndex() < target else Qt.Key.Key_Up)


def test_reasoning_effort_is_offered_for_think_models_and_sent(qtbot, console) -> None:
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
    assert turn.request_body["reasoning"] == {"effort": "high"}
    assert turn.response is not None and turn.response.reasoning is not None
    assert turn.response.reasoning.effort == "high"  # the sandbox repeats what it was asked

    choose(
        qtbot, tab.model, "service-pro"
    )  # the choice stays, but a model that does not reason is not sent it
    assert not panel.reasoning_effort.isVisibleTo(tab)
    send(qtbot, tab, "And the sunset?")
    wait_done(qtbot, tab, 2)
    assert "reasoning" not in tab.service.turns[1].request_body

    choose(qtbot, tab.model, "service-think-mini")
    assert panel.reasoning_effort.currentText() == "high"
    choose(qtbot, panel.reasoning_effort, "default")
    send(qtbot, tab, "Briefly?")
    wait_done(qtbot, tab, 3)
    assert "reasoning" not in tab.service.turns[2].request_body  # default: not sent, the service decides
    tab.inspect(0)  # what was sent, as the inspector shows it
    assert '"effort": "high"' in tab.findChild(TextTabsDialog).page_text("Request")
