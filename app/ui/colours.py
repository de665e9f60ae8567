"""The console's colours, in one place that knows a light desktop from a dark one.

Qt's palette gives text and backgrounds; the meanings it has no role for (good, caution, bad, a notice's
background) are here, in a light and a dark variant chosen from the application palette's window colour.
Each pair keeps a contrast of at least 4.5:1 (WCAG AA) on its own background, which
tests/gui/test_colours.py measures.
"""

from __future__ import annotations

from enum import StrEnum

from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QLabel


class Ink(StrEnum):
    GOOD = "good"  # connected, added, valid
    CAUTION = "caution"  # waiting, a duplicate, a near limit
    BAD = "bad"  # refused, failed, invalid
    INFO = "info"  # something under way
    MUTED = "muted"  # secondary text: the figures under an answer
    NOTICE_BACKGROUND = "notice_background"  # the red notice and banner
    NOTICE_TEXT = "notice_text"
    HIGHLIGHT_BACKGROUND = "highlight_background"  # a flagged line in the import preview
    HIGHLIGHT_TEXT = "highlight_text"
    FOCUS = "focus"  # the ring around the control the keyboard acts on


LIGHT = {
    Ink.GOOD: "#1a7f37",
    Ink.CAUTION: "#9a6700",
    Ink.BAD: "#cf222e",
    Ink.INFO: "#0969da",
    Ink.MUTED: "#59636e",
    Ink.NOTICE_BACKGROUND: "#ffebe9",
    Ink.NOTICE_TEXT: "#82071e",
    Ink.HIGHLIGHT_BACKGROUND: "#fff1b8",
    Ink.HIGHLIGHT_TEXT: "#1f2328",
    Ink.FOCUS: "#0550ae",
}
DARK = {
    Ink.GOOD: "#3fb950",
    Ink.CAUTION: "#d29922",
    Ink.BAD: "#f85149",
    Ink.INFO: "#58a6ff",
    Ink.MUTED: "#9198a1",
    Ink.NOTICE_BACKGROUND: "#3c1618",
    Ink.NOTICE_TEXT: "#ffa198",
    Ink.HIGHLIGHT_BACKGROUND: "#4d3800",
    Ink.HIGHLIGHT_TEXT: "#f0f6fc",
    Ink.FOCUS: "#79c0ff",
}


def is_dark(palette: QPalette | None = None) -> bool:
    """A dark desktop: the window background is darker than its text."""
    palette = palette or QGuiApplication.palette()
    return (
        palette.color(QPalette.ColorRole.Window).lightness()
        < palette.color(QPalette.ColorRole.WindowText).lightness()
    )


def hex_of(ink: Ink) -> str:
    return (DARK if is_dark() else LIGHT)[ink]


def qcolor(ink: Ink) -> QColor:
    return QColor(hex_of(ink))


def css(ink: Ink, extra: str = "") -> str:
    """A style sheet's `color:` for a label, with any `extra` declarations after it."""
    return f"color: {hex_of(ink)};{(' ' + extra) if extra else ''}"


def ink_label(label: QLabel, ink: Ink) -> QLabel:
    """A label's text colour through its palette. A style sheet of its own (`css`) made each label cost about
    three times as much to polish (measured alone: ~2 ms against ~0.7 ms), and a finished turn's figures and
    verdict are polished once per turn shown."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, qcolor(ink))
    label.setPalette(palette)
    return label
