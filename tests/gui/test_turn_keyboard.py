"""The keyboard through a conversation: the conversation and the tabs show a ring, each turn's controls (and a
call's output box, "Use saved output", "Send outputs") come where they are read, between the conversation and
its options, JSON editors let Tab go on, and the focus is in the message box at launch and after what the
Playground does by itself (Send outputs, the re-send once an address is allowed, Compare closed)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.sandbox.store.database import run_blocking
from app.ui.colours import Ink, qcolor
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.reach import profile_of, shown
from tests.gui.test_keyboard import colour_near, walk_tab_chain
from tests.gui.test_playground import click_box, send, wait_done
from tests.gui.test_playground_functions import add_example, open_options, wait_calling_or_done


@pytest.fixture
def tab(console: MainWindow) -> PlaygroundTab:
    console.resize(1100, 800)
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def ringed(widget: QWidget) -> bool:
    """The widget's left edge or top edge shows the focus colour, as a person sees a ring."""
    image = widget.grab().toImage()
    edge = [image.pixelColor(x, image.height() // 2) for x in range(3)]
    edge += [image.pixelColor(image.width() // 2, y) for y in range(3)]
    return any(colour_near(pixel, qcolor(Ink.FOCUS)) for pixel in edge)


def test_the_conversation_shows_a_ring_when_tabbed_to(qtbot: QtBot, tab: PlaygroundTab) -> None:
    tab.chain.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(tab.chain.hasFocus)
    for _ in range(4):  # Chain on server, New conversation, Prompt…, Get code, then the conversation
        focused = QApplication.focusWidget()
        assert focused is not None
        qtbot.keyClick(focused, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is tab.transcript
    qtbot.waitUntil(lambda: ringed(tab.transcript))


def test_the_focused_tab_is_outlined(qtbot: QtBot, console: MainWindow, tab: PlaygroundTab) -> None:
    bar = console.tabs.tabBar()
    bar.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(bar.hasFocus)
    focus = qcolor(Ink.FOCUS)

    def outlined(index: int) -> bool:
        rect = bar.tabRect(index)
        image = bar.grab().toImage()
        return colour_near(image.pixelColor(rect.center().x(), rect.top() + 1), focus)

    qtbot.waitUntil(lambda: outlined(0))
    assert not outlined(1)
    qtbot.keyClick(bar, Qt.Key.Key_Right)  # the Security tab: the outline follows it
    qtbot.waitUntil(lambda: outlined(1))
    assert not outlined(0)


def chain_from(qtbot: QtBot, console: MainWindow) -> list[QWidget]:
    qtbot.wait(50)  # the turns' controls are put in the chain once the turn's changes are made
    return walk_tab_chain(qtbot, console.tabs.tabBar())


def test_a_turns_buttons_come_between_the_conversation_and_its_options(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    send(qtbot, tab, "Say something short")
    wait_done(qtbot, tab)
    view = tab.views[0]
    chain = chain_from(qtbot, console)
    where = chain.index
    turn_controls = [
        view.edit_button,
        view.action_buttons["copy"],
        view.action_buttons["inspect"],
        view.action_buttons["regenerate"],
    ]
    shown = [widget for widget in turn_controls if widget.isVisible()]
    assert len(shown) == 4
    positions = [where(widget) for widget in shown]
    assert where(tab.transcript) < positions[0] and positions == sorted(positions)
    assert positions[-1] < where(tab.instructions) < where(tab.send_button)


def test_a_calls_output_box_and_its_buttons_come_before_send(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    click_box(qtbot, tab.functions.answer_with_saved)  # answer it myself: the box waits for me
    send(qtbot, tab, "Use get_weather for Paris please")
    wait_calling_or_done(qtbot, tab)
    view = tab.views[0]
    (box,) = view.calls.boxes
    use_saved = box.findChild(QPushButton, "use_saved_output")
    assert box.output is not None and use_saved is not None
    chain = chain_from(qtbot, console)
    where = chain.index
    assert where(tab.transcript) < where(box.output) < where(use_saved) < where(view.calls.send)
    assert where(view.calls.send) < where(tab.instructions) < where(tab.send_button)


def test_tab_leaves_the_schema_and_a_functions_parameters(qtbot: QtBot, tab: PlaygroundTab) -> None:
    click_box(qtbot, tab.structured)
    editor = tab.schema_edit
    qtbot.waitUntil(editor.isVisible)
    before = editor.toPlainText()
    editor.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(editor.hasFocus)
    qtbot.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.toPlainText() == before and not editor.hasFocus()

    open_options(qtbot, tab)
    dialog = tab.functions.add_function()
    qtbot.waitUntil(dialog.isVisible)
    parameters = dialog.parameters
    parameters.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(parameters.hasFocus)
    qtbot.keyClick(parameters, Qt.Key.Key_Tab)
    assert "\t" not in parameters.toPlainText() and not parameters.hasFocus()
    dialog.reject()


def test_the_message_box_has_the_focus_at_launch(qtbot: QtBot, console: MainWindow) -> None:
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None)
    assert QApplication.focusWidget() is console.playground.message


def test_after_send_outputs_the_focus_is_in_the_message_box(
    qtbot: QtBot, console: MainWindow, tab: PlaygroundTab
) -> None:
    open_options(qtbot, tab)
    add_example(tab, "get_weather")
    click_box(qtbot, tab.functions.answer_with_saved)
    send(qtbot, tab, "Use get_weather for Oslo please")
    wait_calling_or_done(qtbot, tab)
    view = tab.views[0]
    (box,) = view.calls.boxes
    assert box.output is not None
    qtbot.keyClicks(box.output, "snow")
    view.calls.send.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.keyClick(view.calls.send, Qt.Key.Key_Space)
    wait_done(qtbot, tab)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.message)


def test_closing_compare_gives_the_focus_back(qtbot: QtBot, console: MainWindow, tab: PlaygroundTab) -> None:
    from tests.gui.test_playground_compare import compare_window

    send(qtbot, tab, "Something to compare")
    wait_done(qtbot, tab)
    qtbot.keyClick(
        tab.message, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    dialog = compare_window(qtbot, tab)
    dialog.close()  # the window's close button
    qtbot.waitUntil(lambda: not dialog.isVisible())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is tab.message)


def test_the_resend_after_an_address_is_allowed_leaves_the_focus_in_the_message_box(
    qtbot: QtBot, console: MainWindow
) -> None:
    from tests.gui.test_playground_refusal import click, refused_turn, store_of

    profile = profile_of(console.session)
    store = store_of(console)
    run_blocking(store.allowlists.add_entry("project", profile.project_id, "198.51.100.0/24", "office"))
    run_blocking(store.allowlists.set_enabled("project", profile.project_id, True))
    view = refused_turn(qtbot, console, "203.0.113.77")
    click(qtbot, view.action_buttons["allow"])
    security = console.security
    qtbot.waitUntil(lambda: security.service.data is not None and shown(security).scope == "project")
    security.add_form.add_button.setFocus(Qt.FocusReason.TabFocusReason)
    click(qtbot, security.add_form.add_button)
    playground = console.playground
    qtbot.waitUntil(lambda: playground.service.turns[0].status == "completed", timeout=15000)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is playground.message)
