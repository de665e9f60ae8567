"""Simplify: the fewest CIDRs covering exactly the addresses a list admits; never one address more."""

from __future__ import annotations

import ipaddress

from hypothesis import given, settings
from hypothesis import strategies as st

from app.netrules.simplify import Listed, simplify

NOW = 1_800_000_000


def _addresses(cidrs: list[str]) -> list[tuple[int, int]]:
    """The addresses the cidrs admit, as the fewest runs (first, last): two lists admit the same addresses
    exactly when their runs are equal (a set of every address would be the same check, a thousand times
    the work of a /22)."""
    spans = sorted(
        (int(network.network_address), int(network.broadcast_address))
        for network in map(ipaddress.ip_network, cidrs)
    )
    runs: list[tuple[int, int]] = []
    for first, last in spans:
        if runs and first <= runs[-1][1] + 1:  # overlaps or touches the run before: one run
            runs[-1] = (runs[-1][0], max(runs[-1][1], last))
        else:
            runs.append((first, last))
    return runs


def _after(entries: list[Listed]) -> list[Listed]:
    plan = simplify(entries, NOW)
    gone = set(plan.remove_ids)
    kept = [e for e in entries if e.id not in gone]
    return kept + [Listed(f"new{i}", m.cidr, m.description, m.expires_at) for i, m in enumerate(plan.merges)]


def test_adjacent_halves_and_a_covered_entry_merge() -> None:
    entries = [
        Listed("a", "10.0.0.0/25", "left"),
        Listed("b", "10.0.0.128/25", "right"),
        Listed("c", "10.0.0.7/32", "inside"),
        Listed("d", "192.0.2.1/32", "alone"),
    ]
    plan = simplify(entries, NOW)
    assert [(m.cidr, m.description) for m in plan.merges] == [("10.0.0.0/24", "left; right; inside")]
    assert (plan.before, plan.after) == (4, 2)


def test_entries_with_different_expiries_never_merge() -> None:
    entries = [Listed("a", "10.0.0.0/25"), Listed("b", "10.0.0.128/25", expires_at=NOW + 3600)]
    assert simplify(entries, NOW).merges == ()


prefixes = st.integers(min_value=22, max_value=32)
networks = st.builds(
    lambda start, prefix: str(ipaddress.ip_network((start << 0, prefix), strict=False)),
    st.integers(min_value=0xC0000000, max_value=0xC0000FFF),
    prefixes,
)
expiries = st.sampled_from([None, None, NOW + 60, NOW - 5])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(networks, expiries), max_size=25))
def test_the_simplified_list_admits_exactly_the_same_addresses_at_every_moment(
    drawn: list[tuple[str, int | None]],
) -> None:
    unique = list(dict.fromkeys(drawn))
    entries = [Listed(f"e{i}", str(ipaddress.ip_network(c)), "", x) for i, (c, x) in enumerate(unique)]
    after = _after(entries)
    for moment in (NOW, NOW + 30, NOW + 3600):  # now, before one expiry, after it

        def live(items: list[Listed], t: int = moment) -> list[str]:
            return [e.cidr for e in items if e.expires_at is None or e.expires_at > t]

        assert _addresses(live(after)) == _addresses(live(entries))
    assert len(after) <= len(entries)
