"""Connecting repaints what changed, not the window: the Playground, painted once in the window's first frames,
is not repainted whole as the session comes up (the model list, the state, the engine), nor are tabs repainted
whole when a label inside them changes."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QApplication, QLabel, QScrollArea, QTabWidget, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from app.ui.page import SteadyTabs
from app.ui.widgets.rich_text_label import RichTextLabel


class Paints(QObject):
    """The paints one widget receives, and when the window last laid itself out or painted."""

    def __init__(self, watched: QWidget) -> None:
        super().__init__()
        self.watched = watched
        self.rects: list[QRect] = []
        self.last_change = time.monotonic()
        QApplication.instance().installEventFilter(self)  # type: ignore[union-attr]  # a QApplication runs

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.LayoutRequest, QEvent.Type.UpdateRequest):
            self.last_change = time.monotonic()
        elif watched is self.watched and isinstance(event, QPaintEvent):
            self.last_change = time.monotonic()
            self.rects.append(event.rect())
        return False

    def quiet_for(self, seconds: float) -> bool:
        return time.monotonic() - self.last_change >= seconds

    def changed(self) -> None:
        """Something has just been changed: quiet_for counts from this moment."""
        self.last_change = time.monotonic()

    def whole(self) -> list[QRect]:
        return [rect for rect in self.rects if rect.contains(self.watched.rect())]

    def area(self) -> int:
        return sum(rect.width() * rect.height() for rect in self.rects)

    def stop(self) -> None:
        QApplication.instance().removeEventFilter(self)  # type: ignore[union-attr]


def test_connecting_repaints_none_of_the_playground_whole(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    from app.bootstrap import Paths, make_session
    from app.ui.main_window import MainWindow

    session = make_session(Paths.under(tmp_path), interactive=False)
    window = MainWindow(session)
    qtbot.addWidget(window)
    window.show()  # as the app starts: the first frame, the tabs built and painted, then the session
    QApplication.processEvents()
    window.ensure_tabs()
    qtbot.waitExposed(window)
    tab = window.playground
    first = Paints(tab)
    qtbot.waitUntil(lambda: first.whole() != [] and first.quiet_for(0.1))
    first.stop()
    paints = Paints(tab)
    try:
        session.tasks.start("startup", session.activate())
        qtbot.waitUntil(lambda: session.state == "ok", timeout=10000)
        paints.changed()
        qtbot.waitUntil(lambda: paints.quiet_for(0.2), timeout=5000)
    finally:
        paints.stop()
        shutdown = asyncio.ensure_future(session.shutdown())
        qtbot.waitUntil(shutdown.done, timeout=10000)
    # Each layout pass reaching a QTabWidget repaints it whole (SteadyTabs): 5 to 6 times, ~3 ms each.
    assert paints.whole() == [], paints.rects
    # What changed: the model box, filled, and the controls beside it it pushed along.
    tab_area = tab.width() * tab.height()
    assert paints.area() < tab_area // 4, paints.rects


def test_a_label_changed_inside_a_tab_repaints_the_label_not_the_tabs(qtbot: QtBot) -> None:
    tabs = QTabWidget()
    qtbot.addWidget(tabs)
    page = QWidget()
    label = QLabel("short", page)
    QVBoxLayout(page).addWidget(label)
    tabs.addTab(page, "Page")
    tabs.resize(400, 300)
    SteadyTabs(tabs)
    paints = Paints(page)
    tabs.show()
    try:
        qtbot.waitUntil(lambda: paints.whole() != [] and paints.quiet_for(0.1))  # the first frame
        paints.rects.clear()
        label.setText("a longer text than before")  # a new size hint, laid out up to the tabs
        paints.changed()
        qtbot.waitUntil(lambda: paints.quiet_for(0.1))
        assert paints.whole() == [], paints.rects
        tabs.setTabText(0, "A much longer tab title")  # the bar grows: the tabs are placed again
        qtbot.waitUntil(lambda: tabs.tabBar().width() >= tabs.tabBar().sizeHint().width())
    finally:
        paints.stop()


def test_a_rich_text_label_is_not_repainted_when_its_page_is_laid_out_again(qtbot: QtBot) -> None:
    scroll = QScrollArea(widgetResizable=True)
    qtbot.addWidget(scroll)
    page = QWidget()
    rich = RichTextLabel("<b>Try:</b> pick an example, it fills the message box below, or type your own.")
    reference = QLabel(rich.text())  # Qt's own, measured afresh at each width
    reference.setWordWrap(True)
    layout = QVBoxLayout(page)
    layout.addWidget(rich)
    layout.addStretch(1)
    scroll.setWidget(page)
    scroll.resize(300, 200)
    paints = Paints(rich)
    scroll.show()
    try:
        qtbot.waitUntil(lambda: paints.rects != [] and paints.quiet_for(0.1))  # the first frame
        paints.rects.clear()
        page.updateGeometry()  # the scroll area asks the page's height at its widths again
        paints.changed()
        qtbot.waitUntil(lambda: paints.quiet_for(0.1))
        assert paints.rects == []
        assert rich.heightForWidth(120) == reference.heightForWidth(120) > rich.heightForWidth(600)
        before = rich.heightForWidth(120)
        longer = f"<b>Now</b> {'a longer text, which wraps onto more lines. ' * 3}"
        rich.setText(longer)  # measured again, not the height kept for the text before
        reference.setText(longer)
        assert rich.heightForWidth(120) == reference.heightForWidth(120) > before
    finally:
        paints.stop()
