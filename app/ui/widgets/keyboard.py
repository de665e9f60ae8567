"""The Tab order, said explicitly: a person moves through a tab's controls in reading order, whatever order
the code happened to build them in."""

from __future__ import annotations

from itertools import pairwise

from PySide6.QtWidgets import QWidget


def tab_chain(*widgets: QWidget) -> None:
    """Tab goes from each widget to the next one given (Shift+Tab back)."""
    for first, second in pairwise(widgets):
        QWidget.setTabOrder(first, second)
