"""Windows and dialogs sized to the screen they open on: never larger than its available area (the desktop
without panels and docks), so their buttons and the window's own title-bar buttons stay on screen."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

MARGIN = 16  # room for the window manager's frame around the client area


def available(widget: QWidget) -> QRect:
    """The available geometry of the screen `widget` (or its parent) is on, the primary one before it shows."""
    parent = widget.parentWidget()
    # PySide6's stubs say screen() is never None; before a widget is shown, or off any screen, it can be.
    screens: list[QScreen | None] = [parent.screen() if parent is not None else None, widget.screen()]
    screens.append(QGuiApplication.primaryScreen())
    return next(screen for screen in screens if screen is not None).availableGeometry()


def scale(widget: QWidget) -> float:
    """Device pixels per point on the screen `widget` opens on (2 at QT_SCALE_FACTOR=2 or a 200% desktop)."""
    parent = widget.parentWidget()
    screens: list[QScreen | None] = [parent.screen() if parent is not None else None, widget.screen()]
    screens.append(QGuiApplication.primaryScreen())
    return next(screen for screen in screens if screen is not None).devicePixelRatio()


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Resize to `width` x `height`, or to the screen's available area less a frame's margin when smaller."""
    room = available(widget)
    widget.resize(min(width, room.width() - MARGIN), min(height, room.height() - 2 * MARGIN))


def clamp_to_screen(widget: QWidget) -> None:
    """A size and place restored from an earlier session (maybe on a larger screen) brought onto this one."""
    room = available(widget)
    width = min(widget.width(), room.width() - MARGIN)
    height = min(widget.height(), room.height() - 2 * MARGIN)
    if (width, height) != (widget.width(), widget.height()):
        widget.resize(width, height)
    frame = widget.frameGeometry()
    x = min(max(frame.x(), room.left()), room.right() - frame.width() + 1)
    y = min(max(frame.y(), room.top()), room.bottom() - frame.height() + 1)
    if (x, y) != (frame.x(), frame.y()):
        widget.move(max(room.left(), x), max(room.top(), y))
