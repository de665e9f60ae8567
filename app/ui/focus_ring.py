"""A focus ring a person can see: a 2 px outline in the palette's focus colour around the control the keyboard
acts on, and a 1 px one around a focused list's current row. Qt's own (the Fusion style's) is a faint tint on
buttons, a dotted line around a check box's text, and nothing at all on a list's current row.

The ring is one small widget laid over the focused control (its child, so that a grab of the control shows it),
moved when the focus moves, in every window of the application. It was a window style sheet: Qt then styles
every widget through QStyleSheetStyle, whose polish and drawing cost ~9 ms of a launch and a fifth of the GUI
tests' time, for four rules.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QEvent, QObject, QRect, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QTabBar,
    QTextEdit,
    QWidget,
)

from app.ui.colours import Ink, qcolor

# Every kind of control a person can Tab to.
FOCUSABLE = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractSpinBox,
    QPlainTextEdit,
    QTextEdit,
    QAbstractItemView,
    QScrollArea,  # the conversation: the arrows and Page Up/Down scroll it
    QTabBar,  # the ring is around its current tab
)
RING_NAME = "focus_ring"


class FocusRing(QWidget):
    """The outline over the focused control: transparent to the mouse and to the Tab chain."""

    def __init__(self) -> None:
        super().__init__(objectName=RING_NAME)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.target: QWidget | None = None
        self._row = QRect()  # the focused list's current row, as last drawn (in the ring's coordinates)

    def attach(self, target: QWidget) -> None:
        if self.target is not target:
            self.detach()
            self.target = target
            self.setParent(target)
            target.installEventFilter(self)
            if isinstance(target, QAbstractItemView):
                target.viewport().installEventFilter(self)
        self.setGeometry(self._frame())
        self._row = self._current_row()
        self.raise_()
        self.show()

    def detach(self) -> None:
        target, self.target = self.target, None
        self.hide()
        if target is not None and shiboken6.isValid(target):
            target.removeEventFilter(self)
            if isinstance(target, QAbstractItemView):
                target.viewport().removeEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if watched is self.target:
            if kind == QEvent.Type.Resize:
                self.setGeometry(self._frame())
            elif kind == QEvent.Type.ChildAdded:
                self.raise_()  # above a child the control made after the ring came (a scroll bar, say)
            elif kind == QEvent.Type.Paint and isinstance(self.target, QTabBar):
                frame = self._frame()  # the bar repaints when its current tab changes: the ring follows it
                if frame != self.geometry():
                    self.setGeometry(frame)
        elif kind == QEvent.Type.Paint:
            # The list painted: repaint the ring only if its current row moved (a key, a scroll, rows added),
            # as the ring is transparent and its own repaint repaints the list under it.
            row = self._current_row()
            if row != self._row:
                self._row = row
                self.update()
        return False

    def _frame(self) -> QRect:
        """Where the ring goes in the control: all of it, or a tab bar's current tab."""
        target = self.target
        assert target is not None
        if isinstance(target, QTabBar) and target.currentIndex() >= 0:
            return target.tabRect(target.currentIndex())
        return target.rect()

    def _current_row(self) -> QRect:
        view = self.target
        if not isinstance(view, QAbstractItemView) or getattr(
            view.itemDelegate(), "outlines_focus_row", False
        ):
            return QRect()
        index = view.currentIndex()
        if not index.isValid():
            return QRect()
        viewport = view.viewport().geometry()  # the row in the view's coordinates, cut to what is shown
        return view.visualRect(index).translated(viewport.topLeft()).intersected(viewport)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        colour = qcolor(Ink.FOCUS)
        painter.setPen(QPen(colour, 2))
        painter.drawRoundedRect(self.rect().adjusted(1, 1, -1, -1), 3, 3)
        if not self._row.isNull():
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setPen(QPen(colour, 1))
            painter.drawRect(self._row.adjusted(0, 0, -1, -1))


class FocusRings(QObject):
    """Puts the ring on whichever control has the focus, in any window of the application."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.setObjectName(RING_NAME)
        self._ring: FocusRing | None = None
        app.focusChanged.connect(self.follow)

    @property
    def ring(self) -> FocusRing | None:
        """The ring now, if it still exists (it goes with the control it was on, when that is deleted)."""
        if self._ring is not None and not shiboken6.isValid(self._ring):
            self._ring = None
        return self._ring

    def follow(self, _old: QWidget | None, new: QWidget | None) -> None:
        ring = self.ring
        if new is None or not isinstance(new, FOCUSABLE):
            if ring is not None:
                ring.detach()
            return
        if ring is None:
            ring = self._ring = FocusRing()
        ring.attach(new)


def install_focus_rings() -> FocusRings:
    """Once per application: the ring follows the focus in every window from then on, starting with the
    control that has it now."""
    app = QApplication.instance()
    assert isinstance(app, QApplication), "made after the application"
    existing = app.findChild(FocusRings, RING_NAME, Qt.FindChildOption.FindDirectChildrenOnly)
    rings = existing if isinstance(existing, FocusRings) else FocusRings(app)
    rings.follow(None, app.focusWidget())
    return rings
