"""The Playground's split between the saved conversations and the rest of the page."""

from __future__ import annotations

from PySide6.QtWidgets import QSplitter, QWidget


class SideSplit(QSplitter):
    """The conversations on the left, in a splitter a person can narrow or close at 800 px. At the page's
    first show the list takes a sixth of its width (120-220 px): at 800 px the row above the conversation
    keeps one line."""

    def __init__(self, side: QWidget, main: QWidget) -> None:
        super().__init__(objectName="playground_splitter")
        self.addWidget(side)
        self.addWidget(main)
        self.setStretchFactor(1, 1)
        self.setSizes([170, 900])  # until `share`
        self._shared = False

    def share(self, width: int) -> None:
        """Split the page's `width`, once. Before the page's first layout where it can: split after it, the
        page is laid out at the split above and again at this one, every word-wrapped label on it measured
        at both widths (a slower launch)."""
        if not self._shared:
            self._shared = True
            side = max(120, min(220, width // 6))
            self.setSizes([side, max(1, width - side)])
