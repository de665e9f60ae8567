"""The entries table's search agrees with a plain Python filter, in list order and in any display order."""

from __future__ import annotations

import random

from app.api.admin import Entry
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
