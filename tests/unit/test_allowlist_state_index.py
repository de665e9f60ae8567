"""The lists' indexes are built on the builder thread, once per load, and a reload of an unchanged list reuses
the index it had (the periodic read of a 100,000-entry list costs a comparison, not a build)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.api.admin import Allowlist, parse
from app.core.security.state import AllowlistState
from app.netrules import parse_address
from app.netrules.index import EntryIndex


def read(*cidrs: str) -> Allowlist:
    entries: list[dict[str, Any]] = [
        {"id": f"ipal_{i}", "cidr": cidr, "description": "", "created_at": 1_790_000_000}
        for i, cidr in enumerate(cidrs)
    ]
    return parse(Allowlist, {"enabled": True, "entries": entries}, "an allowlist")


def test_an_unchanged_list_read_again_keeps_its_index_and_a_changed_one_gets_a_new_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: list[str] = []
    build = EntryIndex.of_cidrs

    def recorded(cidrs: list[str], labels: list[str | None]) -> EntryIndex:
        threads.append(threading.current_thread().name)
        return build(cidrs, labels)

    monkeypatch.setattr(EntryIndex, "of_cidrs", recorded)
    state = AllowlistState()
    state.data = state.org_data = read("198.51.100.0/24", "2001:db8::/48")
    first = state.entry_index(state.data)
    state.data = state.org_data = read("198.51.100.0/24", "2001:db8::/48")  # the periodic read: new objects
    assert state.entry_index(state.data) is first and len(threads) == 1
    state.data = read("198.51.100.0/24", "2001:db8::/64")
    changed = state.entry_index(state.data)
    assert changed is not first and changed.holders(parse_address("2001:db8::1")) == ["ipal_1"]
    assert len(threads) == 2 and all(name.startswith("entry-index") for name in threads)  # never the caller's


def test_a_long_list_s_build_is_not_started_by_asking_whether_it_is_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`ready_index` waits for a short list's index, and only reports on a long one's: its build is started
    by `index_later`, once the rows are shown (AllowlistService._loaded)."""
    builds: list[tuple[str, ...]] = []  # the builder thread is shared: other tests' builds may pass too
    build = EntryIndex.of_cidrs

    def recorded(cidrs: list[str], labels: list[str | None]) -> EntryIndex:
        builds.append(tuple(cidrs))
        return build(cidrs, labels)

    monkeypatch.setattr(EntryIndex, "of_cidrs", recorded)
    state = AllowlistState()
    long = ("198.51.100.0/24", "203.0.113.0/24", "2001:db8::/48")
    state.data = state.org_data = read(*long)
    assert state.ready_index(state.data, wait_up_to=2) is None
    short = read("192.0.2.0/24")
    assert state.ready_index(short, wait_up_to=2) is not None  # the one builder thread runs jobs in order
    assert ("192.0.2.0/24",) in builds and long not in builds
    index = state.index_later(state.data).result()
    assert state.ready_index(state.data, wait_up_to=2) is index and long in builds
