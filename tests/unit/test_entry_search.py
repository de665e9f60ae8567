"""The entries table's search agrees with a plain Python filter, in list order and in any display order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.admin import Entry
from app.core.security import entry_search
from app.core.security.entry_search import EntrySearch


def entries() -> list[Entry]:
    return [
        Entry(id=f"ipal_{i}", cidr=f"10.{i}.0.0/16" if i % 2 else f"2001:db8:{i:x}::/48", description=text)
        for i, text in enumerate(["Office", "VPN", "office annex", "", "CI runners", "home office"] * 5)
    ]


def plain(listed: list[Entry], order: list[int], needle: str) -> list[int]:
    return [i for i in order if needle in listed[i].cidr.lower() or needle in listed[i].description.lower()]


def test_matching_and_narrowing_agree_with_a_plain_filter_in_any_order() -> None:
    listed = entries()
    shuffled = list(range(len(listed)))
    random.Random(3).shuffle(shuffled)
    for search in (
        EntrySearch(listed),
        EntrySearch(listed, shuffled),
        EntrySearch(listed).in_order(shuffled),
    ):
        for needle in ("office", "10.", "db8:1", "off", "vpn", "zzz"):
            assert search.matching(needle) == plain(listed, search.order, needle), needle
        wide = search.matching("o")
        assert search.narrowed(wide, "office") == plain(listed, search.order, "office")
        shown = [i % 3 == 0 for i in range(len(listed))]  # display order's flags
        flagged = [serial for position, serial in enumerate(search.order) if shown[position]]
        assert search.matching("office", shown) == plain(listed, flagged, "office")


def test_a_needle_never_matches_across_the_cidr_and_the_description() -> None:
    assert EntrySearch(entries()).matching("16 home") == []  # "10.5.0.0/16" and "home office"


@pytest.fixture(autouse=True)
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(entry_search, "_SLICE", 4)  # several slices, some with a NUL and some without


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet="aΣσςİIıKkß \n\0/:.é", max_size=8), max_size=12), st.randoms())
def test_keys_are_each_entry_lowered_whatever_its_text(texts: list[str], rng: random.Random) -> None:
    """Case rules that look at neighbours (a final sigma), letters that lower to two (İ), a NUL or a line
    break inside a description: each entry's key is still its own text lowered, in any order and slice."""
    listed = [Entry(id=f"ipal_{i}", cidr=f"10.0.{i}.0/24", description=text) for i, text in enumerate(texts)]
    order = list(range(len(listed)))
    rng.shuffle(order)
    for search in (EntrySearch(listed), EntrySearch(listed, order), EntrySearch(listed).in_order(order)):
        for needle in ("σ", "ς", "i̇", "ss", "\0", "é", "k"):
            assert search.matching(needle) == plain(listed, search.order, needle), needle
        assert search.narrowed(search.order, "σ") == plain(listed, search.order, "σ")
