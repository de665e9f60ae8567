"""The window's page around the tabs: the notice bar above them, and the layout that sizes the page by its
minimum inside the window's scroll area."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout, QWidget

from app.ui.colours import Ink, hex_of

if TYPE_CHECKING:
    from PySide6.QtCore import QEvent, QSize


class NoticeBar(QWidget):
    """A non-modal notice above the tabs for errors; dismissed with ✕ or replaced by the next one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notice")
        self.label = QLabel(objectName="notice_text")
        self.label.setWordWrap(True)
        close = QPushButton("✕", objectName="notice_close")
        close.setFlat(True)
        close.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(close)
        self.setStyleSheet(
            f"#notice {{ background: {hex_of(Ink.NOTICE_BACKGROUND)}; }}"
            f" #notice_text {{ color: {hex_of(Ink.NOTICE_TEXT)}; }}"
        )
        self.hide()

    def show_text(self, text: str) -> None:
        # Notices quote servers: never markup. Set here, after the first frame: the Qt namespace's first
        # use costs ~50 ms (PySide6 builds its enums lazily), and the window's first frame would pay it.
        from PySide6.QtCore import Qt  # not at import: even importing the name costs ~15 ms before the frame

        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setText(text)
        self.show()


class PageLayout(QVBoxLayout):
    """The window's page (notices above the tabs) inside its scroll area, sized by its minimum only.

    A scroll area asks a page with word-wrapped text for the height it prefers at the viewport's width, and a
    box layout answers with every part's preferred height (a table's dozen rows too): the page scrolled at
    800x600, where it fits. Saying no height-for-width here makes the scroll area use the minimum size; the
    wrapped labels inside are still laid out at their width."""

    def hasHeightForWidth(self) -> bool:
        return False


class SteadyTabs(QObject):
    """Keeps a QTabWidget from repainting itself whole at every layout request from a page inside it.

    Qt lays out any widget a layout holds by posting a LayoutRequest to its parent, and each layout that runs
    passes one on up (QLayout::activate ends in the parent's updateGeometry()). QTabWidget, which has no
    layout of its own, answers each one by placing its tab bar and pages again and repainting itself in full
    (setUpLayout's update()): a label's new text deep inside the Playground would repaint the middle of the
    window whole, six times as a connection comes up. The bar and the pages are placed by the bar (its size,
    and whether it shows; these tabs have no corner widgets) and by the tab widget's size, whose changes place
    them anew (Qt's resize and show events): a request that finds the bar as it was only passes the new size
    hints on to the page around the tabs."""

    def __init__(self, tabs: QTabWidget) -> None:
        super().__init__(tabs)
        from PySide6.QtCore import QEvent

        self._layout_request = QEvent.Type.LayoutRequest
        self._bar: tuple[QSize, bool] | None = None
        tabs.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != self._layout_request or not isinstance(watched, QTabWidget):
            return False
        bar = (watched.tabBar().sizeHint(), watched.tabBar().isVisibleTo(watched))
        if bar != self._bar:  # a tab's label changed, or the bar shows or hides: Qt places it and the pages
            self._bar = bar
            return False
        watched.updateGeometry()
        return True
