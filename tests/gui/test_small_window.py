"""The console at 800x600: what a person needs stays usable and in place as panels open and messages come."""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from app.ui.security.tab import SecurityTab
from tests.gui.test_playground import click_box, send, wait_done


def test_structured_output_leaves_the_conversation_a_usable_height(console: MainWindow, qtbot: QtBot) -> None:
    console.resize(800, 600)
    console.tabs.setCurrentWidget(console.playground)
    tab = console.playground
    qtbot.mouseClick(tab.params_toggle, Qt.MouseButton.LeftButton)
    click_box(qtbot, tab.structured)
    # The schema editor opens in view (its pane scrolls to it), not below the fold.
    qtbot.waitUntil(lambda: tab.schema_edit.visibleRegion().boundingRect().height() >= 60)
    # Before, the schema and the parameters pushed the conversation down to ~60 px; now it keeps ten lines
    # (the options scroll in their pane), and the splitter gives more to whichever a person drags.
    assert tab.transcript.height() >= 10 * tab.transcript.fontMetrics().lineSpacing()
    # A larger window shows the options whole again, the conversation taking the rest.
    console.resize(1400, 900)
    qtbot.waitUntil(lambda: tab.options_scroll.height() >= tab.options_panel.sizeHint().height())
    console.resize(800, 600)
    qtbot.waitUntil(lambda: tab.transcript.height() >= 10 * tab.transcript.fontMetrics().lineSpacing())
    click_box(qtbot, tab.structured)
    qtbot.mouseClick(tab.params_toggle, Qt.MouseButton.LeftButton)
    # Closed again, the room goes back to the conversation.
    assert tab.options_scroll.height() <= tab.options_panel.sizeHint().height() < tab.transcript.height() // 2


def test_a_long_conversation_title_does_not_scroll_the_sidebar_sideways(
    console: MainWindow, qtbot: QtBot
) -> None:
    console.resize(800, 600)
    tab = console.playground
    send(qtbot, tab, "Write 300 words about the sea, the sky and the long way home")
    wait_done(qtbot, tab)
    qtbot.waitUntil(lambda: tab.sidebar.list.model().rowCount() == 1)
    assert not tab.sidebar.list.horizontalScrollBar().isVisible()


def place(widget: QWidget) -> tuple[int, int, int, int]:
    corner = widget.mapTo(widget.window(), widget.rect().topLeft())
    return corner.x(), corner.y(), widget.width(), widget.height()


def test_the_security_forms_stay_in_place_as_messages_come_and_go(
    console: MainWindow, qtbot: QtBot, tab: SecurityTab
) -> None:
    console.resize(800, 600)
    form = tab.add_form
    qtbot.waitUntil(lambda: form.cidr.isVisible())
    remove = tab.findChild(QPushButton, "remove")
    fixed = [form.cidr, form.description, form.add_button, tab.check.input, remove]
    before = [place(widget) for widget in fixed]
    # Host bits set: a two-line verdict and two "Use …" buttons; a leading zero: one; cautions; nothing.
    seen: list[list[tuple[int, int, int, int]]] = []
    firsts: list[int] = []
    for text in ("192.168.1.5/24", "010.0.0.1", "10.0.0.0/8", "0.0.0.0/0", ""):
        form.cidr.selectAll()
        qtbot.keyClick(form.cidr, Qt.Key.Key_Delete)
        qtbot.keyClicks(form.cidr, text)
        qtbot.wait(10)  # the layout settles on the next turn of the loop
        seen.append([place(widget) for widget in fixed])
        items = [form.suggestions.itemAt(i) for i in range(form.suggestions.count())]
        suggestions = [item.widget() for item in items if item is not None]
        buttons = [widget for widget in suggestions if isinstance(widget, QPushButton)]
        if buttons:
            firsts.append(place(buttons[0])[0])
    qtbot.keyClicks(tab.check.input, "203.0.113.7")
    seen.append([place(widget) for widget in fixed])
    qtbot.keyClicks(form.description, "x" * 200)  # the count at its limit: the Add button stays put
    seen.append([place(widget) for widget in fixed])
    assert all(now == before for now in seen)
    # The "Use …" buttons start at the same place whatever they say, not spread over the row.
    assert len(firsts) >= 2 and len(set(firsts)) == 1


def settled_height(qtbot: QtBot, widget: QWidget) -> int:
    """The widget's height once the layout has settled: the same at three looks in a row (qtbot looks every ~10 ms). A tab just
    shown is laid out over a few turns of the loop, and on a loaded machine past any fixed wait."""
    looks: list[int] = []

    def steady() -> bool:
        looks.append(widget.height())
        return len(looks) >= 3 and len(set(looks[-3:])) == 1

    qtbot.waitUntil(steady, timeout=10000)
    return looks[-1]


def test_the_advice_is_folded_so_the_table_keeps_its_rows(console: MainWindow, qtbot: QtBot) -> None:
    console.resize(800, 600)
    console.tabs.setCurrentWidget(console.security)
    tab = console.security
    advice = tab.advice
    assert not advice.label.isVisible() and advice.toggle.isVisible()
    # Laid out at 800x600 with the lists read (what they hold changes what is shown above the table).
    qtbot.waitUntil(lambda: tab.service.data is not None)
    rows_height = settled_height(qtbot, tab.entries.table)
    qtbot.mouseClick(advice.toggle, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: advice.label.isVisible() and "CI runners" in advice.label.text())
    qtbot.waitUntil(lambda: tab.entries.table.height() < rows_height)  # open, it takes the table's room
    qtbot.mouseClick(advice.toggle, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.entries.table.height() == rows_height)


def test_the_session_tokens_stay_readable_at_every_width(console: MainWindow, qtbot: QtBot) -> None:
    console.tabs.setCurrentWidget(console.playground)
    tab = console.playground
    send(qtbot, tab, "Tell me about tea")
    wait_done(qtbot, tab)
    figures = tab.service.turns[0].figures  # a long session's figures, as wide as they come
    figures.input_tokens, figures.output_tokens, figures.total_tokens = 12_345_678, 2_345_678, 14_691_356
    tab.service.totals_changed.emit()
    total = "14,691,356"
    for width in (1400, 1000, 900, 800, 640):
        console.resize(width, 600)
        qtbot.waitUntil(partial(lambda wanted: console.width() == wanted, width))
        qtbot.wait(30)
        label = tab.totals
        shown = label.fontMetrics().horizontalAdvance(label.shown_text())
        assert label.isVisible() and label.width() >= shown > 0, (width, label.width(), label.shown_text())
        assert total in label.shown_text() and "tokens" in label.shown_text(), (width, label.shown_text())
        assert "Session: in" in label.toolTip() and total in label.toolTip()
        code = tab.findChild(QPushButton, "get_code")
        assert code is not None
        if width >= 1100:  # room for the controls on one line: the figure shortens, no control wraps
            assert code.y() == tab.model.y(), (width, label.shown_text())
        controls = (tab.model, tab.web_search, tab.chain, tab.prompt_button, code)
        lines = {control.geometry().center().y() // 4 for control in controls}  # a line centres its items
        if width >= 800:  # narrower, the shortest form beside two lines of controls may need a third
            assert len(lines) <= 2, (width, label.shown_text())
