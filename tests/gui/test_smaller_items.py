"""Issue 24's smaller items: Enter in the description adds (once), and the schema's messages are sentences."""

from __future__ import annotations

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.playground.turns import check_schema
from app.ui.security.tab import SecurityTab


def test_enter_in_either_field_adds_once(qtbot: QtBot, tab: SecurityTab) -> None:
    form = tab.add_form
    for field, cidr in ((form.description, "203.0.113.0/24"), (form.cidr, "198.51.100.0/24")):
        count = len(tab.service.entries)
        form.cidr.clear()
        qtbot.keyClicks(form.cidr, cidr)
        qtbot.keyClicks(form.description, "office")
        field.setFocus()
        qtbot.keyClick(field, Qt.Key.Key_Return)
        expected = count + 1
        qtbot.waitUntil(lambda: len(tab.service.entries) == expected)  # noqa: B023
        qtbot.wait(200)
        assert len(tab.service.entries) == count + 1  # not twice


def test_the_schema_messages_end_with_a_full_stop() -> None:
    for text in ("{oops", '{"type": 5}'):
        assert check_schema(text).message.endswith(".")
