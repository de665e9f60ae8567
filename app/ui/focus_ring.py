"""A focus ring a person can see: a 2 px outline in the palette's focus colour around the control the keyboard
acts on. Qt's own (the Fusion style's) is a faint tint on buttons, a dotted line around a check box's text, and
nothing at all on a list's current row."""

from __future__ import annotations

from app.ui.colours import Ink, hex_of

# Every kind of control a person can Tab to. A border set only under :focus keeps each control's own look
# until it has the focus (a style sheet rule replaces the native frame only where it applies).
FOCUSABLE = (
    "QPushButton",
    "QToolButton",
    "QCheckBox",
    "QRadioButton",
    "QLineEdit",
    "QComboBox",
    "QAbstractSpinBox",
    "QPlainTextEdit",
    "QTextEdit",
    "QAbstractItemView",
)


def focus_style_sheet() -> str:
    """The window's style sheet rules for the focus ring, and for a focused list's current row."""
    colour = hex_of(Ink.FOCUS)
    controls = ", ".join(f"{kind}:focus" for kind in FOCUSABLE)
    return (
        f"{controls} {{ border: 2px solid {colour}; border-radius: 3px; }}"
        # The row the arrows and F2 act on: outlined, so a focused list shows where it is.
        f" QAbstractItemView::item:focus {{ border: 1px solid {colour}; }}"
    )
