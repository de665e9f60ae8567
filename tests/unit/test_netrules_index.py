"""The entry index answers as the linear scans of `analysis` do, on lists whose ranges nest and repeat."""

from __future__ import annotations

import ipaddress
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.netrules import covering, nearest, relate
from app.netrules.index import EntryIndex, interval_of
from app.netrules.intervals import read_cidrs
from app.netrules.parse import Address, Network

V6_BASE = int(ipaddress.IPv6Address("2001:db8::"))
# Small spaces, so that ranges nest, repeat and sit side by side.
v4 = st.builds(
    lambda value, prefix: ipaddress.IPv4Network((0x0A000000 + value, prefix), strict=False),
    st.integers(0, 2**12 - 1),
    st.integers(20, 32),
)
v6 = st.builds(
    lambda value, prefix: ipaddress.IPv6Network((V6_BASE + value, prefix), strict=False),
    st.integers(0, 2**12 - 1),
    st.integers(116, 128),
)
nets = st.lists(st.one_of(v4, v6), max_size=60)
points = st.one_of(
    st.integers(0x0A000000 - 8, 0x0A000000 + 2**12 + 8).map(ipaddress.IPv4Address),
    st.integers(V6_BASE - 8, V6_BASE + 2**12 + 8).map(ipaddress.IPv6Address),
)


def entries_of(networks: list[Network]) -> list[dict[str, Any]]:
    return [{"id": f"e{i}", "cidr": network.with_prefixlen} for i, network in enumerate(networks)]


def distance(network: Network, address: Address) -> int:
    start, end = int(network.network_address), int(network.broadcast_address)
    value = int(address)
    return 0 if start <= value <= end else min(abs(value - start), abs(value - end))


@settings(max_examples=300)
@given(nets, st.one_of(v4, v6))
def test_relate_agrees_with_the_linear_scan(networks: list[Network], new: Network) -> None:
    index = EntryIndex.of_entries(entries_of(networks))
    linear = relate(new, [(f"e{i}", network) for i, network in enumerate(networks)])
    assert index.relate(new) == linear


@settings(max_examples=300)
@given(nets, nets, st.one_of(v4, v6))
def test_networks_added_later_are_related_too(
    networks: list[Network], added: list[Network], new: Network
) -> None:
    index = EntryIndex.of_entries(entries_of(networks))
    for i, network in enumerate(added):
        index.add(network, f"line {i}")
    labelled = [(f"e{i}", n) for i, n in enumerate(networks)] + [
        (f"line {i}", n) for i, n in enumerate(added)
    ]
    assert index.relate(new) == relate(new, labelled)


@settings(max_examples=300)
@given(nets, points)
def test_holding_and_nearest_agree_with_the_linear_scans(networks: list[Network], address: Address) -> None:
    index = EntryIndex.of_entries(entries_of(networks))
    assert index.holding(address) == covering(address, networks)
    expected = nearest(address, networks)
    found = index.nearest(address)
    if expected is None:
        assert found is None
    else:  # ties may name another entry at the same distance
        assert found is not None
        assert distance(networks[found], address) == distance(networks[expected], address)


def test_intervals_of_the_service_cidrs() -> None:
    assert interval_of("203.0.113.0/24") == (4, 0xCB007100, 24)
    assert interval_of("2001:db8::/48") == (6, V6_BASE, 48)
    assert interval_of("203.0.113.7") == (4, 0xCB007107, 32)
    assert interval_of("not an address") is None and interval_of("10.0.0.0/33") is None
    index = EntryIndex.of_entries([{"id": "bad", "cidr": "nonsense"}, {"id": "ok", "cidr": "10.0.0.0/8"}])
    assert index.holding(ipaddress.IPv4Address("10.1.2.3")) == [1]
    assert index.relate(ipaddress.IPv4Network("10.1.0.0/16"))[0].other_id == "ok"


def test_a_list_read_at_once_falls_back_to_each_cidr_when_one_has_no_slash_or_two() -> None:
    """Read at once, the cidrs are split on "/" in pairs: a cidr without one beside one with two would pair
    an address with the wrong prefix length. Such a list is read cidr by cidr, and only those are left out."""
    columns = read_cidrs(["203.0.113.7", "24/198.51.100.0/8", "10.0.0.0/8"])
    assert (
        columns.prefixes == [32, -1, 8] and columns.starts[0] == 0xCB007107 and columns.starts[2] == 10 << 24
    )
    assert read_cidrs(["10.0.0.0/8", "10.0.0.0/8/8"]).prefixes == [8, -1]
    assert read_cidrs(["10.0.0.0/8", "2001:db8::/48"]).prefixes == [8, 48]  # the usual list: at once


@settings(max_examples=300)
@given(nets, nets, st.lists(st.integers(0, 200), max_size=40), st.lists(points, min_size=1, max_size=20))
def test_adds_and_removes_in_place_agree_with_a_fresh_index(
    networks: list[Network], added: list[Network], drops: list[int], probes: list[Address]
) -> None:
    """The sandbox changes one index in place; it must answer as one built from the surviving entries."""
    index = EntryIndex.of_entries(entries_of(networks))
    for i, network in enumerate(added):
        index.add(network, f"a{i}")
    alive = dict(enumerate([*networks, *added]))
    for drop in drops:
        if alive:
            serial = sorted(alive)[drop % len(alive)]
            index.remove(serial)
            index.remove(serial)  # twice is once
            del alive[serial]
    survivors = sorted(alive)
    for probe in probes:
        expected = [
            serial for serial in survivors if probe in alive[serial] or _mapped_in(probe, alive[serial])
        ]
        assert index.holding(probe) == expected
        assert index.contains(probe) == bool(expected)
    if alive:
        new = alive[survivors[0]]
        linear = relate(new, [(index.labels[s], alive[s]) for s in survivors])
        assert index.relate(new) == linear
    assert sorted(index.address_order()) == survivors
    assert index.removed == len(networks) + len(added) - len(survivors)
    for serial in survivors:  # a range listed more than once: the first of it still listed
        assert index.find(alive[serial]) == min(s for s in survivors if alive[s] == alive[serial])


def _mapped_in(address: Address, network: Network) -> bool:
    mapped = address.ipv4_mapped if address.version == 6 else None
    return mapped is not None and mapped in network


def test_contains_takes_ipv4_mapped_addresses_as_ipv4() -> None:
    index = EntryIndex.of_entries([{"id": "a", "cidr": "203.0.113.0/24"}])
    assert index.contains(ipaddress.IPv6Address("::ffff:203.0.113.9"))
    assert not index.contains(ipaddress.IPv6Address("::ffff:203.0.114.9"))
    index.remove(0)
    assert not index.contains(ipaddress.IPv4Address("203.0.113.9"))
