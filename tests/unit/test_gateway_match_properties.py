"""The gateway's match (the segment table, the expiry of the entry found, then the entries around it) names the
entry a linear scan names: the most specific one in force holding the address, IPv4, IPv6 and IPv4-mapped
alike, expired entries passed over; before its table is compiled (the index answers) and after. And the
bulk reader of the service's cidrs reads each as `ipaddress` does."""

from __future__ import annotations

import ipaddress
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from app.netrules.intervals import interval_of, read_cidrs
from app.netrules.parse import Address, Network
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.entry import EntryRecord

NOW = 1_800_000_000
V6_BASE = int(ipaddress.IPv6Address("2001:db8::"))
v4 = st.builds(
    lambda value, prefix: ipaddress.IPv4Network((0x0A000000 + value, prefix), strict=False),
    st.integers(0, 2**12 - 1),
    st.integers(18, 32),
)
v6 = st.builds(
    lambda value, prefix: ipaddress.IPv6Network((V6_BASE + value, prefix), strict=False),
    st.integers(0, 2**12 - 1),
    st.integers(114, 128),
)
listed = st.lists(st.tuples(st.one_of(v4, v6), st.booleans()), max_size=40)  # (network, expired)
points = st.one_of(
    st.integers(0x0A000000 - 8, 0x0A000000 + 2**12 + 8).map(ipaddress.IPv4Address),
    st.integers(0x0A000000 - 8, 0x0A000000 + 2**12 + 8).map(
        lambda v: ipaddress.IPv6Address(0xFFFF00000000 | v)
    ),
    st.integers(V6_BASE - 8, V6_BASE + 2**12 + 8).map(ipaddress.IPv6Address),
)


def in_force_holders(entries: list[tuple[Network, bool]], address: Address) -> list[int]:
    mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
    point = mapped or address
    return [i for i, (network, expired) in enumerate(entries) if not expired and point in network]


@settings(max_examples=100, deadline=None)
@given(listed, st.lists(points, min_size=1, max_size=20))
def test_match_names_the_most_specific_entry_in_force(
    entries: list[tuple[Network, bool]], probes: list[Address]
) -> None:
    records = [
        EntryRecord(f"e{i}", network.with_prefixlen, "", 0, NOW - 1 if expired else None)
        for i, (network, expired) in enumerate(entries)
    ]
    allowlist = AllowlistRecord("organization", "org", True, records, threading.RLock())
    before = [allowlist.match(address, NOW) for address in probes]  # compiled inline (a short list)
    allowlist._lookup = None  # as a long list after a change: the index answers until the table is compiled
    by_index = [allowlist.match(address, NOW) for address in probes]
    for address, found, indexed in zip(probes, before, by_index, strict=True):
        holders = in_force_holders(entries, address)
        if not holders:
            assert found == indexed == -1
        else:
            longest = max(entries[i][0].prefixlen for i in holders)
            assert found in holders and entries[found][0].prefixlen == longest
            assert indexed in holders and entries[indexed][0].prefixlen == longest


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.one_of(v4, v6, st.sampled_from(["10.0.0.1", "10.0.0.5/8", "nonsense", "10.0.0.0/33", "::/0"]))
    )
)
def test_the_bulk_reader_reads_each_cidr_as_one_by_one(items: list[Network | str]) -> None:
    cidrs = [item if isinstance(item, str) else item.with_prefixlen for item in items]
    columns = read_cidrs(cidrs)
    for i, cidr in enumerate(cidrs):
        one = interval_of(cidr)
        read = (
            None
            if columns.prefixes[i] < 0
            else (6 if columns.is_v6[i] else 4, columns.starts[i], columns.prefixes[i])
        )
        assert read == one, cidr
        if one is not None:
            network = ipaddress.ip_network(cidr, strict=False)
            assert one == (network.version, int(network.network_address), network.prefixlen)
