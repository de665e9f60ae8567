"""The first launch's empty conversation says what to try: an example per feature, each filling the message box
and switching on what it needs; the examples go once a conversation starts and come back with a new one."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.core.playground.turns import TurnStatus
from app.ui.main_window import MainWindow
from app.ui.playground.empty_state import EXAMPLES
from app.ui.playground.tab import PlaygroundTab
from tests.gui.reach import body_of, child
from tests.gui.test_playground import wait_done
from tests.gui.test_playground_functions import wait_calling_or_done


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def press(qtbot: QtBot, tab: PlaygroundTab, key: str) -> None:
    """Tab to the example's button and press Space, as a person without a mouse does."""
    button = child(tab, QPushButton, f"example_{key}")
    assert button.isVisible()
    button.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(button, Qt.Key.Key_Space)


def send_it(qtbot: QtBot, tab: PlaygroundTab) -> None:
    assert QApplication.focusWidget() is tab.message
    qtbot.keyClick(tab.message, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def test_the_empty_conversation_offers_an_example_per_feature(qtbot: QtBot, tab: PlaygroundTab) -> None:
    state = tab.empty_state
    qtbot.waitUntil(state.isVisible)
    keys = [example.key for example in EXAMPLES]
    assert keys == ["stream", "image", "search", "structured", "function", "local"]
    for key in keys:
        button = child(state, QPushButton, f"example_{key}")
        assert button.isVisible() and button.text()


def test_every_example_is_in_sight_at_800x600(qtbot: QtBot, tab: PlaygroundTab, console: MainWindow) -> None:
    console.resize(800, 600)
    viewport = tab.transcript.viewport()

    def in_sight(widget: QWidget) -> bool:
        top_left = widget.mapTo(viewport, widget.rect().topLeft())
        bottom_right = widget.mapTo(viewport, widget.rect().bottomRight())
        return viewport.rect().contains(top_left) and viewport.rect().contains(bottom_right)

    intro = tab.empty_state.findChild(QLabel)
    assert intro is not None
    buttons = list(tab.empty_state.buttons.values())
    qtbot.waitUntil(lambda: all(in_sight(widget) for widget in [intro, *buttons]))


def test_an_example_fills_the_message_box_and_goes_once_sent(qtbot: QtBot, tab: PlaygroundTab) -> None:
    press(qtbot, tab, "search")
    assert tab.web_search.isChecked() and tab.message.toPlainText() == "How do CIDR ranges work?"
    send_it(qtbot, tab)
    wait_done(qtbot, tab)
    assert not tab.empty_state.isVisible()
    assert tab.views[0].search_label.text().startswith("Searched:")
    tab.keeper.new()  # New conversation: the examples are back
    qtbot.waitUntil(tab.empty_state.isVisible)


def test_the_image_structured_and_function_examples_send_what_they_say(
    qtbot: QtBot, tab: PlaygroundTab
) -> None:
    press(qtbot, tab, "image")
    qtbot.waitUntil(lambda: len(tab.attachments) == 1)
    send_it(qtbot, tab)
    wait_done(qtbot, tab)
    content = body_of(tab.service.turns[0])["input"][0]["content"]
    assert any(part.get("type") == "input_image" for part in content)

    tab.keeper.new()
    qtbot.waitUntil(tab.empty_state.isVisible)
    press(qtbot, tab, "structured")
    assert tab.structured.isChecked()
    send_it(qtbot, tab)
    wait_done(qtbot, tab)
    assert body_of(tab.service.turns[0])["text"]["format"]["type"] == "json_schema"

    tab.keeper.new()
    qtbot.waitUntil(tab.empty_state.isVisible)
    press(qtbot, tab, "function")
    assert [function.name for function in tab.functions.functions] == ["get_weather"]
    send_it(qtbot, tab)
    wait_calling_or_done(qtbot, tab)
    assert [call.name for call in tab.service.turns[0].calls] == ["get_weather"]
    assert tab.service.turns[0].status in (TurnStatus.CALLING, TurnStatus.COMPLETED)


def test_the_local_model_example_opens_the_profile(
    qtbot: QtBot, tab: PlaygroundTab, console: MainWindow
) -> None:
    from app.ui.settings.profiles_dialog import ProfilesDialog

    press(qtbot, tab, "local")
    qtbot.waitUntil(lambda: any(d.isVisible() for d in console.findChildren(ProfilesDialog)))
    for dialog in console.findChildren(ProfilesDialog):
        dialog.close()
