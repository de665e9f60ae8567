"""The conversation as one scrolling page whose streaming turn grows without relaying the finished ones."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLayout, QPushButton, QScrollArea, QSizePolicy, QVBoxLayout, QWidget

from app.ui.layout_batch import one_layout_pass
from app.ui.widgets.keyboard import tab_chain

# How close to the end (in pixels) still counts as "reading the newest text".
FOLLOW_MARGIN = 48
PAGE_MARGIN = 9


def layout_stops(layout: QLayout) -> Iterator[QWidget]:
    """The controls Tab stops at in `layout`, in the order it lays them out (top to bottom, left to right)."""
    for position in range(layout.count()):
        item = layout.itemAt(position)
        widget = item.widget() if item is not None else None
        inner = item.layout() if item is not None else None
        if widget is not None:
            if widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
                yield widget
            elif (own := widget.layout()) is not None:
                yield from layout_stops(own)
        elif inner is not None:
            yield from layout_stops(inner)


def controls_added(widget: QWidget) -> None:
    """A part of a turn made new controls (a call's output box, a code's Copy button): the conversation that
    holds it puts them in the Tab chain where they are read."""
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, Transcript):
        parent = parent.parentWidget()
    if parent is not None:
        parent.chain_tabs_soon()


def _column(parent: QWidget | None = None) -> tuple[QWidget, QVBoxLayout]:
    widget = QWidget(parent)
    layout = QVBoxLayout(widget)
    layout.setContentsMargins(0, 0, 0, 0)
    return widget, layout


class Transcript(QScrollArea):
    """Finished turns sit in one column and the newest turn in its own slot below it.

    A growing answer then invalidates only the slot's layout: the finished column keeps its cached size,
    so a delta costs the same with 1,000 or 300,000 tokens above it (were all turns in one layout, every
    height step of the answer would relay all of them). The view follows the newest text while the
    person is at the end, and leaves them where they are once they scroll up.

    Above the finished column, a bar stands for earlier turns whose views are not built (see
    lazy_turn_views.py); scrolling to the top or pressing it asks for them, and they are inserted without
    moving the page.
    """

    earlier_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # After earlier turns went in above: the turn that was at the top, and where in the viewport it was.
        # It is held there through every relayout that follows (answers find their height a step later),
        # until the person scrolls or the page changes otherwise.
        self._anchor: tuple[QWidget, int] | None = None
        self.setWidgetResizable(True)
        # A stop on the Tab chain, named: the arrows and Page Up/Down scroll the conversation from here.
        self.setAccessibleName("Conversation")
        holder, page = _column()
        self._page = page
        page.setContentsMargins(PAGE_MARGIN, PAGE_MARGIN, PAGE_MARGIN, PAGE_MARGIN)
        self.earlier = QPushButton(holder, objectName="earlier_turns", flat=True)
        self.earlier.setToolTip("Earlier turns of this conversation: scroll to the top or press to show them")
        self.earlier.clicked.connect(self.earlier_requested.emit)
        self.earlier.hide()
        page.addWidget(self.earlier)
        self.finished, self._finished_layout = _column(holder)
        self.live, self._live_layout = _column(holder)
        self.finished.installEventFilter(self)
        page.addWidget(self.finished)
        page.addWidget(self.live)
        page.addStretch(1)
        # The page's height is its height for the current width. Its minimum (every label wrapped at the
        # narrowest width) is far taller and left blank space below the newest turn.
        holder.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.setWidget(holder)
        self._following = True
        self._chain_due = False
        self._empty: QWidget | None = None
        bar = self.verticalScrollBar()
        bar.rangeChanged.connect(self._range_changed)
        bar.valueChanged.connect(self._value_changed)
        bar.actionTriggered.connect(lambda _action: self.release_anchor())  # the person scrolls

    @property
    def following(self) -> bool:
        """Whether the view sticks to the end of the conversation as it grows."""
        return self._following

    def add_turn(self, view: QWidget) -> None:
        """Show a new turn at the end; the one before it moves to the finished column."""
        self.release_anchor()
        self._show_empty(False)
        self._retire_live()
        self._live_layout.addWidget(view)
        # Shown as it is added: a layout only posts the show of a widget it takes in, which then waits for
        # the next pass of the event loop (a loaded machine's pass may end first, leaving the view there
        # but not visible to whatever runs before that show).
        view.show()
        self._following = True  # a new turn was just asked for: show it
        self._scroll_to_end()
        self.chain_tabs_soon()

    def set_empty_state(self, widget: QWidget) -> None:
        """What the page shows while it has no turn (gone with the first, back once they are cleared): read
        from its top, where following the end would leave it."""
        self._empty = widget
        self._page.insertWidget(0, widget)
        self.chain_tabs_soon()

    def follow(self) -> None:
        """Go to the end and follow the newest text again (the person asked for more of this turn)."""
        self.release_anchor()
        self._following = True
        self._scroll_to_end()

    def chain_tabs_soon(self) -> None:
        """Put the turns' controls in the Tab chain right after the conversation, once the current changes
        are made: a control made later goes at the end of the window's chain, after Send and Stop."""
        if not self._chain_due:
            self._chain_due = True
            QTimer.singleShot(0, self, self._chain_tabs)

    def _chain_tabs(self) -> None:
        self._chain_due = False
        page = self.widget()
        layout = page.layout() if page is not None else None
        if layout is not None:
            tab_chain(self, *layout_stops(layout))

    def clear(self) -> None:
        for widget in self._turns(self._finished_layout) + self._turns(self._live_layout):
            widget.hide()
            widget.deleteLater()
        self._following = True
        self.release_anchor()
        self._show_empty(True)

    def _show_empty(self, shown: bool) -> None:
        if self._empty is not None:
            self._empty.setVisible(shown)

    def set_earlier(self, count: int) -> None:
        """How many earlier turns wait above the ones shown (0 hides the bar)."""
        self.earlier.setText(f"↑ Show {count:,} earlier turn{'s' if count != 1 else ''}")
        self.earlier.setVisible(count > 0)

    def insert_earlier(self, views: Sequence[QWidget]) -> None:
        """Put views above the finished ones; what the person was looking at stays in place."""
        self.release_anchor()
        item = self._finished_layout.itemAt(0)
        top = item.widget() if item is not None else None
        if top is not None:
            self._anchor = (top, self._page_y(top) - self.verticalScrollBar().value())
            top.installEventFilter(self)  # its moves, as the views above it find their heights
        with one_layout_pass(self.finished):  # one layout for all of them, not one per view shown
            for position, view in enumerate(views):
                self._finished_layout.insertWidget(position, view)
                view.show()
        self._hold_finished_height()
        self.chain_tabs_soon()

    def drop_earliest(self, count: int) -> None:
        """Let the `count` earliest finished views go (their turns stay in the conversation)."""
        self.release_anchor()
        for view in self._turns(self._finished_layout, count):
            view.hide()
            view.deleteLater()
        self._hold_finished_height()

    @staticmethod
    def _turns(layout: QVBoxLayout, count: int | None = None) -> list[QWidget]:
        """Take the layout's first `count` widgets (all by default) out of it. removeWidget deletes each
        layout item: a taken item left alive keeps the widget's size cache, and its next layout never learns
        that it changed height."""
        widgets: list[QWidget] = []
        for index in range(layout.count() if count is None else min(count, layout.count())):
            item = layout.itemAt(index)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widgets.append(widget)
        for widget in widgets:
            layout.removeWidget(widget)
        return widgets

    def _retire_live(self) -> None:
        for widget in self._turns(self._live_layout):
            self._finished_layout.addWidget(widget)  # reparented: hidden until shown again
            widget.show()
        self._hold_finished_height()

    def _hold_finished_height(self) -> None:
        # Each step of the growing answer first lays the page out at its old height: the shortfall would come
        # out of the finished column, shrunk and grown back, relaying every finished turn. Its minimum is its
        # height at this width, so the shortfall goes elsewhere.
        width = (
            self.finished.width() if self.finished.width() > 0 else self.viewport().width() - 2 * PAGE_MARGIN
        )
        layout = self._finished_layout
        if layout.hasHeightForWidth():
            self.finished.setMinimumHeight(max(0, layout.totalHeightForWidth(width)))
        else:
            self.finished.setMinimumHeight(layout.totalSizeHint().height())

    def _page_y(self, widget: QWidget) -> int:
        page = self.widget()
        return widget.mapTo(page, QPoint(0, 0)).y() if page is not None else 0

    def _hold_anchor(self) -> None:
        if self._anchor is not None:
            widget, seen_at = self._anchor
            self.verticalScrollBar().setValue(self._page_y(widget) - seen_at)

    def release_anchor(self) -> None:
        """Stop holding the view at the turn that was on top when earlier turns went in above it."""
        if self._anchor is not None:
            self._anchor[0].removeEventFilter(self)
            self._anchor = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self._anchor is not None and watched is self._anchor[0] and event.type() == QEvent.Type.Move:
            self._hold_anchor()
        # A finished turn changed height (reasoning shown), or the width changed (window, scroll bar).
        resized = isinstance(event, QResizeEvent) and event.size().width() != event.oldSize().width()
        if watched is self.finished and (event.type() == QEvent.Type.LayoutRequest or resized):
            self._hold_finished_height()
        return super().eventFilter(watched, event)

    def _scroll_to_end(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _range_changed(self, low: int, high: int) -> None:
        if self._empty is not None and self._empty.isVisibleTo(self):
            self.verticalScrollBar().setValue(low)
        elif self._anchor is not None:  # earlier turns went in above: keep the same text in view
            self._hold_anchor()
        elif self._following:
            self.verticalScrollBar().setValue(high)

    def _value_changed(self, value: int) -> None:
        # Only the person's scrolling changes this: while following, programmatic moves go to the end.
        bar = self.verticalScrollBar()
        self._following = value >= bar.maximum() - FOLLOW_MARGIN
        if value == bar.minimum() < bar.maximum() and self.earlier.isVisible():
            QTimer.singleShot(0, self, self.earlier_requested.emit)  # at the top: the earlier turns come in
