"""Web-search titles and URLs come from the network: the Playground shows them as text, never as markup."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from app.sandbox.engines import search
from app.sandbox.engines.base import SearchResult
from app.ui.main_window import MainWindow
from app.ui.playground.tab import PlaygroundTab
from tests.gui.test_playground import click_box, send, wait_done

HOSTILE = SearchResult(
    url='https://evil.example/?q="><img src=x>&b=<b>',
    title="<img src=x> and <b>bold</b>",
    snippet="A page whose title is markup. It should read as text.",
)


@pytest.fixture
def tab(console: MainWindow, monkeypatch: pytest.MonkeyPatch) -> PlaygroundTab:
    # The shipped search corpus holds no markup; a real search engine's results can (the sandbox runs in
    # this process, so its search is swapped for one that answers with such a page).
    monkeypatch.setattr(search, "search", lambda query, *args, **kwargs: [HOSTILE])
    console.tabs.setCurrentWidget(console.playground)
    return console.playground


def test_search_titles_and_urls_are_shown_as_text(qtbot: QtBot, tab: PlaygroundTab) -> None:
    click_box(qtbot, tab.web_search)
    send(qtbot, tab, "How do CIDR ranges work?")
    wait_done(qtbot, tab)
    sources = tab.views[0].sources
    markup = sources.text()
    assert "<img" not in markup and "<b>bold" not in markup
    assert "&lt;img src=x&gt; and &lt;b&gt;bold&lt;/b&gt;" in markup
    # What a person reads is the title exactly as the server sent it, and the link goes where it said.
    document = QTextDocument()
    document.setHtml(markup)
    assert HOSTILE.title in document.toPlainText()
    assert _hrefs(document) == [HOSTILE.url]


def _hrefs(document: QTextDocument) -> list[str]:
    """The link targets in a document, as Qt reads them from the markup."""
    hrefs: list[str] = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.isValid() and fragment.charFormat().isAnchor():
                hrefs.append(fragment.charFormat().anchorHref())
            fragments += 1
        block = block.next()
    return hrefs


def test_a_source_that_is_not_http_is_shown_never_linked(
    qtbot: QtBot, console: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    sneaky = SearchResult(url="javascript:alert(1)", title="Click me", snippet="A page with a script link.")
    monkeypatch.setattr(search, "search", lambda query, *args, **kwargs: [sneaky])
    tab = console.playground
    click_box(qtbot, tab.web_search)
    send(qtbot, tab, "How do CIDR ranges work?")
    wait_done(qtbot, tab)
    document = QTextDocument()
    document.setHtml(tab.views[0].sources.text())
    assert "javascript:alert(1)" in document.toPlainText() and _hrefs(document) == []
