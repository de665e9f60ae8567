"""The conversation above, the request's options below, in a splitter: opening the options never squeezes
the conversation (at 800x600 the schema and the parameters left it ~60 px), they scroll in their pane."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QSplitter, QWidget

from .options_panel import OptionsPanel

CONVERSATION_LINES = 10  # the least the conversation keeps, in lines of text
CONVERSATION_SHARE = 0.4  # and the least share of the height it keeps (1400x900: all options open fit)
# In a short window it keeps this share, up to SHORT_LINES lines (800x600 with Functions open: ~190 px, where
# ten lines, ~130 px, showed little more than a turn's last buttons); the options scroll in their pane.
SHORT_SHARE = 0.6
SHORT_LINES = 16


class OptionsSplit(QSplitter):
    """Fits the options pane to its content, as long as the conversation keeps its share of the height and
    its minimum; once a person drags the handle their split stands until an option is opened or closed."""

    def __init__(self, conversation: QWidget, options: OptionsPanel, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setObjectName("conversation_splitter")
        self.conversation, self.options = conversation, options
        conversation.setMinimumHeight(CONVERSATION_LINES * conversation.fontMetrics().lineSpacing())
        # The options keep their own height, never squeezed to the pane: the pane scrolls instead of the
        # schema editor shrinking to a few lines.
        options.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.options_scroll = QScrollArea(objectName="options_scroll")
        self.options_scroll.setWidget(options)
        self.options_scroll.setWidgetResizable(True)
        self.options_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the options inside it
        self.options_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.options_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.addWidget(conversation)
        self.addWidget(self.options_scroll)
        self.setStretchFactor(0, 1)
        self.setChildrenCollapsible(False)
        self._dragged = False
        self.splitterMoved.connect(self._moved_by_hand)
        self._opened: tuple[QWidget, QWidget] | None = (
            None  # an option just opened: its switch, its last part
        )
        self.options_scroll.verticalScrollBar().rangeChanged.connect(
            lambda *_: QTimer.singleShot(0, self._reveal_opened)  # once the grown pane is laid out
        )
        options.structured.toggled.connect(lambda _on: self.opened(options.structured, options.schema_status))
        options.params_toggle.toggled.connect(lambda _on: self.opened(options.params_toggle, options.params))
        functions = options.functions
        functions.enabled.toggled.connect(lambda _on: self.opened(functions.enabled, functions.body))

    def _moved_by_hand(self) -> None:
        self._dragged = True

    def opened(self, switch: QWidget, last: QWidget) -> None:
        """An option was opened or closed: fit the pane again, and scroll what opened into view."""
        self._dragged = False
        self.fit()
        self._opened = (switch, last) if last.isVisible() else None
        QTimer.singleShot(0, self._reveal_opened)  # and again when the pane's scroll range has grown

    def fit(self) -> None:
        total = sum(self.sizes())
        if total <= 0:
            return
        line = self.conversation.fontMetrics().lineSpacing()
        short = min(int(total * SHORT_SHARE), SHORT_LINES * line)
        keep = max(self.conversation.minimumHeight(), int(total * CONVERSATION_SHARE), short)
        pane = max(0, min(self.options.sizeHint().height(), total - keep))
        self.setSizes([total - pane, pane])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._dragged:  # a larger window shows the whole of the options again
            self.fit()

    def _reveal_opened(self) -> None:
        """Scroll the pane to the part just opened: whole if it fits, else from its switch. (QScrollArea's
        ensureWidgetVisible stops at a text editor's cursor, the schema's first line.)"""
        if self._opened is None or not self._opened[1].isVisible():
            return
        switch, last = self._opened
        bar = self.options_scroll.verticalScrollBar()
        top = switch.mapTo(self.options, QPoint(0, 0)).y()
        bottom = last.mapTo(self.options, QPoint(0, last.height())).y()
        view = self.options_scroll.viewport().height()
        if bottom > bar.value() + view or top < bar.value():
            bar.setValue(min(top, bottom - view))
        if bar.value() <= top and (bottom <= bar.value() + view or bar.value() == top):
            self._opened = None  # in view: later changes of the range leave the pane where it is
