"""The gateway's segment table agrees with the EntryIndex on which entries hold an address, nested or not."""

from __future__ import annotations

import ipaddress
import random
import threading

from app.netrules import EntryIndex, Network
from app.netrules.parse import Address
from app.netrules.segments import SegmentTable
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.entry import EntryRecord
from tests.perf.bench_matcher import probes, random_networks


def nested_networks(count: int, rng: random.Random) -> list[Network]:
    networks = random_networks(count, rng)
    return networks + [n.supernet(new_prefix=max(0, n.prefixlen - rng.randint(1, 8))) for n in networks[::3]]


def edges(networks: list[Network]) -> list[Address]:
    found: list[Address] = []
    for network in networks:
        found += [network.network_address, network.broadcast_address]
        after = int(network.broadcast_address) + 1
        if after < 2**network.max_prefixlen:
            found.append(
                ipaddress.ip_address(after) if network.version == 6 else ipaddress.IPv4Address(after)
            )
    return found


def test_the_chain_is_every_holder_most_specific_first() -> None:
    rng = random.Random(3)
    for count in (0, 1, 5, 300, 6000):  # 6000: past the size where the top-16-bit table is built
        networks = nested_networks(count, rng)
        index = EntryIndex.of_cidrs(
            [n.with_prefixlen for n in networks], [str(i) for i in range(len(networks))]
        )
        table = SegmentTable(*index.rows())
        addresses = edges(networks[:1500]) + (probes(2000, rng, networks) if networks else [])
        for address in addresses:
            chain = table.chain(address)
            assert sorted(chain) == index.holding(address), address
            prefixes = [index.intervals[serial][2] for serial in chain]  # type: ignore[index]
            assert prefixes == sorted(prefixes, reverse=True)


def test_an_ipv4_mapped_address_is_looked_up_as_ipv4() -> None:
    index = EntryIndex.of_cidrs(["192.0.2.0/24"], ["a"])
    table = SegmentTable(*index.rows())
    assert table.chain(ipaddress.IPv6Address("::ffff:192.0.2.9")) == (0,)
    assert table.chain(ipaddress.IPv6Address("::192.0.2.9")) == ()


def test_a_long_list_answers_from_the_index_until_its_table_is_compiled() -> None:
    waiting: list[AllowlistRecord] = []
    rng = random.Random(5)
    networks = random_networks(600, rng)  # past the size compiled inline
    entries = [EntryRecord(f"e{i}", n.with_prefixlen, "", 0) for i, n in enumerate(networks)]
    allowlist = AllowlistRecord(
        "organization", "org", True, entries, threading.RLock(), compile_later=waiting.append
    )
    assert waiting == [allowlist]
    addresses = probes(500, rng, networks)
    before = [allowlist.match(address, 0) for address in addresses]
    allowlist.compile()
    assert [allowlist.match(address, 0) for address in addresses] == before
    assert any(serial >= 0 for serial in before)
