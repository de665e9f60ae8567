"""Twice the scale: a 1400x900 screen has 700x450 points, an 800x600 one 400x300. The main window's minimum
fits either, its rows of controls wrap instead of widening it, and what is below the fold scrolls into view."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.ui import screen_fit
from app.ui.main_window import MainWindow
from app.ui.screen_fit import MARGIN

LAPTOP = (700, 450)  # 1400x900 at QT_SCALE_FACTOR=2
SMALL = (400, 300)  # 800x600 at QT_SCALE_FACTOR=2


def shown_whole(window: MainWindow, widget: QWidget) -> bool:
    """Scrolled to (as Tab does), the widget lies whole inside the window."""
    window.page_scroll.ensureWidgetVisible(widget)
    corner = widget.mapTo(window, widget.rect().bottomRight())
    return window.rect().contains(corner) and window.rect().contains(
        widget.mapTo(window, widget.rect().topLeft())
    )


@pytest.mark.parametrize("screen", [LAPTOP, SMALL])
def test_the_window_fits_the_screen_at_twice_the_scale(
    console: MainWindow, qtbot: QtBot, screen: tuple[int, int]
) -> None:
    width, height = screen[0] - MARGIN, screen[1] - 2 * MARGIN
    hint = console.minimumSizeHint()
    assert hint.width() <= width and hint.height() <= height, hint
    console.resize(width, height)
    for page, buttons in (
        (console.playground, ("send", "get_code")),
        (console.security, ("list_tools", "credentials", "add")),
    ):
        console.tabs.setCurrentWidget(page)
        qtbot.waitUntil(page.isVisible)
        qtbot.wait(50)  # the layout's pass after the resize
        assert console.width() == width and console.height() == height
        for name in buttons:
            button = page.findChild(QPushButton, name)
            assert button is not None and shown_whole(console, button), name
        if screen == LAPTOP:  # the rows wrap: nothing is off to the side at 700 points
            assert not console.page_scroll.horizontalScrollBar().isVisible()


def test_the_conversation_list_steps_aside_in_a_narrow_window_and_comes_back(
    console: MainWindow, qtbot: QtBot
) -> None:
    sidebar = console.playground.sidebar
    console.tabs.setCurrentWidget(console.playground)
    # Narrower than the Playground with its list beside it (the Security tab, built when first shown, is not
    # what decides: the list is the Playground's).
    console.resize(console.playground.minimumSizeHint().width() - 20, SMALL[1] - 2 * MARGIN)
    qtbot.waitUntil(lambda: not sidebar.isVisible())
    assert not console.sidebar_action.isChecked()
    console.resize(1100, 800)
    qtbot.waitUntil(sidebar.isVisible)
    # A person's choice (View > Conversation list, F9) stays at any width.
    console.sidebar_action.trigger()
    console.resize(1200, 800)
    qtbot.wait(50)
    assert not sidebar.isVisible()
    console.sidebar_action.trigger()
    assert sidebar.isVisible()


def test_a_size_saved_at_twice_the_scale_is_not_restored_at_the_normal_scale(
    console: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(screen_fit, "scale", lambda _widget: 2.0)
    at_two = MainWindow(console.session)
    qtbot.addWidget(at_two)
    at_two.resize(684, 418)  # 1400x900 at scale 2, less the frame
    at_two.close()  # quit: the geometry is saved
    monkeypatch.setattr(screen_fit, "scale", lambda _widget: 1.0)
    at_one = MainWindow(console.session)
    qtbot.addWidget(at_one)
    assert (at_one.width(), at_one.height()) != (684, 418)
    room = screen_fit.available(at_one)  # the first launch's size
    first = (min(1100, room.width() - MARGIN), min(800, room.height() - 2 * MARGIN))
    assert at_one.size().toTuple() == first
    at_one.resize(700, 500)
    at_one.close()
    again = MainWindow(console.session)  # the same scale: the size comes back
    qtbot.addWidget(again)
    assert again.size().toTuple() == (700, 500)
