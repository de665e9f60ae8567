"""The entries' index (0.2-0.4 s at 100,000 entries) is never built on the GUI thread: the Security tab shows
the rows first and has it built on a worker thread, with the table's filter keys in the order by address;
the checks that need it wait for it, never build it."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import pytest
from pytestqt.qtbot import QtBot

from app.api.admin import Entry
from app.core.security.entry_search import EntrySearch
from app.models.entries import COVERS
from app.netrules.index import EntryIndex
from app.ui.security.tab import SecurityTab
from tests.gui.test_security import add


def caught_up(tab: SecurityTab) -> bool:
    """The table shows the list as last read, with its index."""
    return tab.model.indexed and tab.model.entries is tab.service.entries


@pytest.mark.parametrize("wait_up_to", [5_000, 0], ids=["short list: waited for", "long list: rows first"])
def test_the_entry_index_is_never_built_on_the_gui_thread(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch, wait_up_to: int
) -> None:
    monkeypatch.setattr("app.ui.security.tab.WAIT_FOR_INDEX_UP_TO", wait_up_to)
    threads: list[str] = []
    build = EntryIndex.of_cidrs

    def recorded(cidrs: Sequence[str], labels: Sequence[str | None]) -> EntryIndex:
        threads.append(threading.current_thread().name)
        return build(cidrs, labels)

    monkeypatch.setattr(EntryIndex, "of_cidrs", recorded)
    keys_made: list[str] = []  # the table's filter keys: a long list's too are made off the GUI thread
    make_keys = EntrySearch.__init__

    def keys_recorded(search: EntrySearch, entries: Sequence[Entry], order: list[int] | None = None) -> None:
        keys_made.append(threading.current_thread().name)
        make_keys(search, entries, order)

    monkeypatch.setattr(EntrySearch, "__init__", keys_recorded)
    for cidr in ("198.51.100.0/24", "203.0.113.0/24", "2001:db8::/48"):
        add(qtbot, tab, cidr)  # the live check asks the index on every keystroke
        qtbot.waitUntil(lambda: caught_up(tab))
    qtbot.keyClicks(tab.check.input, "203.0.113.9")  # Check an IP asks it too
    tab.service.refresh()
    qtbot.waitUntil(lambda: caught_up(tab))
    assert threads and all(name.startswith("entry-index") for name in threads), threads
    assert threading.main_thread().name not in threads
    if wait_up_to == 0:  # a short list's rows wait for its index, and the model makes their few keys
        assert keys_made and all(name.startswith("entry-index") for name in keys_made), keys_made
    covered = [
        tab.model.entry(row).cidr
        for row in range(tab.model.rowCount())
        if tab.model.data(tab.model.index(row, COVERS))
    ]
    assert covered == ["198.51.100.0/24"]  # the admin plays 198.51.100.7


def test_a_long_list_is_on_screen_before_its_index_build_starts(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built beside the rows, the index would hold the GIL through long C calls while the GUI thread paints
    them (~0.3 s for a 100,000-entry list): the build starts once the rows it indexes are shown. (A list
    read again keeps the rows shown until the new index comes: see SecurityTab._show.)"""
    monkeypatch.setattr("app.ui.security.tab.WAIT_FOR_INDEX_UP_TO", 0)
    shown_first: list[bool] = []
    build = EntryIndex.of_cidrs

    def recorded(cidrs: Sequence[str], labels: Sequence[str | None]) -> EntryIndex:
        shown_first.append([entry.cidr for entry in tab.model.entries] == list(cidrs))
        return build(cidrs, labels)

    monkeypatch.setattr(EntryIndex, "of_cidrs", recorded)
    add(qtbot, tab, "198.51.100.0/24")  # the table was empty: the new list's rows show at once
    qtbot.waitUntil(lambda: caught_up(tab))
    assert shown_first == [True]
