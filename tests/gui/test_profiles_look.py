"""The Profiles dialog as a person sees it on an 800x600 screen: the fields, not the list of one or two
names, take the width, and Enter in a field saves rather than adding a profile."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLineEdit, QListWidget
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from tests.gui.reach import child
from tests.gui.test_small_screen import SCREEN, small_screen  # noqa: F401  (the fixture)


def test_the_fields_show_their_hints_whole_at_800x600(
    small_screen: QRect,  # noqa: F811
    console: MainWindow,
    qtbot: QtBot,
) -> None:
    profiles = console.open_settings()
    qtbot.waitUntil(profiles.isVisible)
    assert profiles.width() <= SCREEN.width()
    listing = child(profiles, QListWidget, "profiles")
    assert listing.width() <= profiles.width() // 4, (listing.width(), profiles.width())
    clipped = []
    for name in ("base_url", "org_id", "models", "proxy"):
        field = child(profiles, QLineEdit, name)
        hint = field.placeholderText()
        if field.fontMetrics().horizontalAdvance(hint) + 12 > field.width():
            clipped.append((name, hint, field.width()))
    assert clipped == []
    profiles.reject()


def test_enter_in_a_field_saves_and_adds_no_profile(console: MainWindow, qtbot: QtBot) -> None:
    profiles = console.open_settings()
    qtbot.waitUntil(profiles.isVisible)
    listing = child(profiles, QListWidget, "profiles")
    count = listing.count()
    name = child(profiles, QLineEdit, "name")
    name.setFocus()
    qtbot.waitUntil(name.hasFocus)
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert listing.count() == count
    profiles.reject()
