"""A conversation exported as Markdown reads as the turn did: what was searched ("Searched: …") and the answer's
Sources come with the prompt and the answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog
from pytestqt.qtbot import QtBot

from app.ui.main_window import MainWindow
from tests.gui.test_playground import click_box, send, wait_done


def test_markdown_export_keeps_the_searches_and_the_sources(
    qtbot: QtBot, console: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = console.playground
    click_box(qtbot, tab.web_search)
    send(qtbot, tab, "How do CIDR ranges work?")
    wait_done(qtbot, tab)
    view = tab.views[0]
    searched = view.search_label.text()
    assert searched.startswith("Searched:")
    qtbot.waitUntil(lambda: tab.sidebar.list.model().rowCount() == 1)
    conversation_id = tab.keeper.current_id
    assert conversation_id
    target = tmp_path / "cidr.md"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), ""))
    tab.sidebar.export(conversation_id, "md")  # the list's right-click menu: Export as Markdown…
    qtbot.waitUntil(target.exists)
    markdown = target.read_text()
    assert searched in markdown
    assert "**Sources**" in markdown and "(<https://docs.example.com/networking/cidr>)" in markdown
    assert markdown.index("Searched:") < markdown.index("**Answer**") < markdown.index("**Sources**")
