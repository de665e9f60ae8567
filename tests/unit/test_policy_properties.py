"""The policy against plain linear definitions over lists hypothesis draws, IPv4-mapped addresses included.

The networks are drawn from one small IPv4 range and one small IPv6 range, so entries nest, repeat and
neighbour each other often; the linear definitions walk every entry with `ipaddress` alone.
"""

from __future__ import annotations

import ipaddress
from itertools import product

from hypothesis import given
from hypothesis import strategies as st

from app.netrules.index import EntryIndex
from app.netrules.parse import Address, Network
from app.netrules.policy import (
    ListAnswer,
    Verdict,
    answer,
    enabling_locks_out,
    nearest_entry,
    never_admitted,
    removal_locks_out,
    verdict,
)

V4_BASE = int(ipaddress.IPv4Address("198.51.100.0"))
V6_BASE = int(ipaddress.IPv6Address("2001:db8::"))


def _v4_network(offset: int, prefix: int) -> Network:
    return ipaddress.IPv4Network((V4_BASE + offset, prefix), strict=False)


def _v6_network(offset: int, prefix: int) -> Network:
    return ipaddress.IPv6Network((V6_BASE + offset, prefix), strict=False)


networks = st.one_of(
    st.builds(_v4_network, st.integers(0, 255), st.integers(24, 32)),
    st.builds(_v6_network, st.integers(0, 255), st.integers(120, 128)),
)
v4_addresses = st.builds(lambda offset: ipaddress.IPv4Address(V4_BASE + offset), st.integers(0, 255))
addresses: st.SearchStrategy[Address] = st.one_of(
    v4_addresses,
    st.builds(lambda offset: ipaddress.IPv6Address(V6_BASE + offset), st.integers(0, 255)),
    # The same IPv4 addresses as the IPv6 that carries them (::ffff:a.b.c.d): one rule says they are equal.
    v4_addresses.map(lambda v4: ipaddress.IPv6Address(f"::ffff:{v4}")),
)
lists = st.lists(networks, max_size=12)


def plain(address: Address) -> Address:
    return address.ipv4_mapped or address if isinstance(address, ipaddress.IPv6Address) else address


def held_by(entries: list[Network], address: Address) -> list[int]:
    """The positions of the entries holding `address`, by walking them."""
    address = plain(address)
    return [i for i, net in enumerate(entries) if net.version == address.version and address in net]


def distance(network: Network, address: Address) -> int:
    value, start = int(plain(address)), int(network.network_address)
    end = int(network.broadcast_address)
    return 0 if start <= value <= end else start - value if value < start else value - end


def index_of(entries: list[Network]) -> EntryIndex:
    return EntryIndex.of_cidrs([str(net) for net in entries], [f"e{i}" for i in range(len(entries))])


@given(lists, st.one_of(st.none(), addresses))
def test_enabling_locks_out_exactly_when_no_entry_holds_the_caller(
    entries: list[Network], address: Address | None
) -> None:
    expected = address is None or not held_by(entries, address)
    assert enabling_locks_out(index_of(entries), address) == expected


@given(lists, st.one_of(st.none(), addresses), st.sets(st.integers(0, 11)))
def test_removal_locks_out_exactly_when_every_holder_goes(
    entries: list[Network], address: Address | None, removed: set[int]
) -> None:
    holders = [] if address is None else held_by(entries, address)
    expected = bool(holders) and all(i in removed for i in holders)
    assert removal_locks_out(index_of(entries), {f"e{i}" for i in removed}, address) == expected


@given(lists, st.booleans(), addresses)
def test_a_lists_answer_is_the_linear_one(entries: list[Network], enabled: bool, address: Address) -> None:
    got = answer(index_of(entries), enabled, address)
    holders = held_by(entries, address)
    assert got.enabled == enabled
    assert got.admits == (not enabled or bool(holders))
    if enabled and holders:
        assert got.admitted_by == entries[holders[0]]
    if enabled and not holders:
        same_family = [net for net in entries if net.version == plain(address).version]
        if same_family:
            assert got.nearest is not None
            assert distance(got.nearest, address) == min(distance(net, address) for net in same_family)
        else:
            assert got.nearest is None


@given(lists, addresses)
def test_the_nearest_entry_holds_the_address_when_one_does(entries: list[Network], address: Address) -> None:
    nearest = nearest_entry(index_of(entries), address)
    holders = held_by(entries, address)
    if holders:
        assert nearest == entries[holders[0]]


@given(lists, addresses)
def test_a_mapped_address_is_asked_as_the_ipv4_it_carries(entries: list[Network], address: Address) -> None:
    mapped = ipaddress.IPv6Address(f"::ffff:{plain(address)}") if plain(address).version == 4 else address
    built = index_of(entries)
    assert answer(built, True, mapped) == answer(built, True, plain(address))
    assert enabling_locks_out(built, mapped) == enabling_locks_out(built, plain(address))


@given(lists, lists)
def test_never_admitted_are_the_project_entries_sharing_no_address_with_the_organization(
    org: list[Network], project: list[Network]
) -> None:
    expected = [net for net in project if not any(net.overlaps(other) for other in org)]
    assert never_admitted(index_of(org), index_of(project)) == expected


def test_the_verdict_is_the_and_of_both_lists_in_every_case() -> None:
    refused, admitted, off = (
        ListAnswer(True),
        ListAnswer(True, admitted_by=_v4_network(0, 24)),
        ListAnswer(False),
    )
    answers = [refused, admitted, off]
    for organization, project in product(answers, [None, *answers]):
        org_refuses = not organization.admits
        project_refuses = project is not None and not project.admits
        expected = {
            (False, False): Verdict.ADMITTED,
            (True, False): Verdict.ORGANIZATION,
            (False, True): Verdict.PROJECT,
            (True, True): Verdict.BOTH,
        }[(org_refuses, project_refuses)]
        assert verdict(organization, project) == expected
