"""A combo box's items shown again only when they changed."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QComboBox


def show_items(box: QComboBox, items: Sequence[tuple[str, object]]) -> None:
    """`items`, each (text, data), in `box`, with its signals blocked. Left as they are when the box holds
    them already: a list read again (each poll, each save) would otherwise empty and fill the box, which then
    measures its items anew and relays what holds it."""
    if [(box.itemText(row), box.itemData(row)) for row in range(box.count())] == list(items):
        return
    blocked = box.blockSignals(True)
    box.clear()
    for text, data in items:
        box.addItem(text, data)
    box.blockSignals(blocked)
