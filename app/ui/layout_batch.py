"""One layout pass for many visibility changes inside a shown window.

Qt lays out every visible ancestor of a widget at once when that widget is shown (QWidget::setVisible walks
up the parents and activates each one's layout), so a finished turn that shows its figures, Copy, Inspector
and Regenerate relaid the turn and the page three or four times in a row. Inside
`one_layout_pass(widget)` the layouts from `widget` up are switched off (QLayout.setEnabled: activate() then
does nothing); at the end they are switched on and activated once, bottom up, as one show would.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtWidgets import QLayout, QWidget


@contextmanager
def one_layout_pass(widget: QWidget) -> Iterator[None]:
    chain: list[QLayout] = []
    current: QWidget | None = widget
    while current is not None:
        layout = current.layout()
        if layout is None or not layout.isEnabled():  # Qt's own walk stops at a widget without a layout
            break
        chain.append(layout)
        if current.isWindow():
            break
        current = current.parentWidget()
    for layout in chain:
        layout.setEnabled(False)
    try:
        yield
    finally:
        for layout in chain:
            layout.setEnabled(True)
        if widget.isVisible():
            for layout in chain:
                layout.activate()
