"""The gateway's segment table agrees with the EntryIndex on which entries hold an address, nested or not."""

from __future__ import annotations

import ipaddress
import random
import threading

import pytest

from app.netrules import EntryIndex, Network
from app.netrules.parse import Address
from app.netrules.segments import SegmentTable
from app.sandbox.store import allowlist_record
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


def related_networks(base: list[Network], count: int, rng: random.Random) -> list[Network]:
    """Blocks around, inside and equal to those of `base`, and some apart: what additions meet."""
    found: list[Network] = []
    for _ in range(count):
        network, roll = base[rng.randrange(len(base))], rng.random()
        if roll < 0.3:
            found.append(network.supernet(new_prefix=max(0, network.prefixlen - rng.randint(1, 12))))
        elif roll < 0.6 and network.prefixlen < network.max_prefixlen:
            prefix = rng.randint(network.prefixlen + 1, network.max_prefixlen)
            inside = int(network.network_address) + rng.randrange(min(network.num_addresses, 1 << 62))
            found.append(type(network)((inside, prefix), strict=False))
        elif roll < 0.7:
            found.append(network)
        else:
            found += random_networks(1, rng)
    return found


def test_a_table_given_blocks_one_by_one_holds_as_one_compiled_with_them() -> None:
    rng = random.Random(11)
    for count in (0, 5, 300, 3000):  # 3000 nested: past the size where the top-16-bit table is built
        networks = nested_networks(count, rng)
        index = EntryIndex.of_cidrs(
            [n.with_prefixlen for n in networks], [str(i) for i in range(len(networks))]
        )
        table = SegmentTable(*index.rows())
        added = related_networks(networks, 300, rng) if networks else random_networks(50, rng)
        for network in added:
            serial = index.add(network, "added")
            start = int(network.network_address)
            table = table.with_block(network.version, start, network.prefixlen, serial)
        compiled = SegmentTable(*index.rows())
        assert count < 3000 or (table.v4.bounds is not None and table.slack > 0)
        for address in edges(networks[:1000] + added) + probes(2000, rng, networks + added):
            assert table.chain(address) == compiled.chain(address), address


def test_entries_added_and_removed_compile_no_table_at_10_or_10000_entries(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A change's work follows what it changes: a table is compiled neither inline nor on the compiler's
    thread, and the list matches as one built anew with the same entries."""
    builds: list[int] = []

    class Counted(SegmentTable):
        def __init__(self, *rows: list[tuple[int, int, int]]) -> None:
            builds.append(1)
            super().__init__(*rows)

    monkeypatch.setattr(allowlist_record, "SegmentTable", Counted)
    rng = random.Random(7)
    for size in (10, 10_000):
        networks = list(dict.fromkeys(random_networks(size, rng)))
        entries = [EntryRecord(f"e{i}", n.with_prefixlen, "", 0) for i, n in enumerate(networks)]
        waiting: list[AllowlistRecord] = []
        allowlist = AllowlistRecord("project", "p", True, entries, threading.RLock(), 0, waiting.append)
        allowlist.compile()
        builds.clear()
        for i, network in enumerate(related_networks(networks, 30, rng)):
            if allowlist.find(network.with_prefixlen) is None:
                allowlist.added(EntryRecord(f"new{i}", network.with_prefixlen, "", 0), network)
            if len(allowlist) > 5:
                allowlist.removed(rng.choice(allowlist.entries).id)
        assert builds == [] and waiting == [allowlist] * (size > allowlist_record.COMPILE_INLINE_UP_TO)
        anew = AllowlistRecord("project", "p", True, allowlist.entries, threading.RLock())
        for address in probes(3000, rng, networks):
            assert matched(allowlist, address) == matched(anew, address), address


def matched(allowlist: AllowlistRecord, address: Address) -> str | None:
    """The id of the entry that admits `address` (serials differ between two lists of the same entries)."""
    serial = allowlist.match(address, 0)
    return allowlist._index.labels[serial] if serial >= 0 else None


def test_entries_added_while_a_table_is_compiled_are_in_it_when_it_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Writes during a long list's compile neither make it start again nor go missing from its table."""
    rng = random.Random(9)
    networks = list(dict.fromkeys(random_networks(600, rng)))  # past the size compiled inline
    entries = [EntryRecord(f"e{i}", n.with_prefixlen, "", 0) for i, n in enumerate(networks)]
    waiting: list[AllowlistRecord] = []
    allowlist = AllowlistRecord("project", "p", True, entries, threading.RLock(), 0, waiting.append)
    arriving = [n for n in related_networks(networks, 40, rng) if allowlist.find(n.with_prefixlen) is None]
    arriving = list(dict.fromkeys(arriving))

    class WritesMeanwhile(SegmentTable):
        def __init__(self, *rows: list[tuple[int, int, int]]) -> None:
            super().__init__(*rows)
            for i, network in enumerate(arriving):  # as the store's writer would, while this one builds
                allowlist.added(EntryRecord(f"new{i}", network.with_prefixlen, "", 0), network)

    monkeypatch.setattr(allowlist_record, "SegmentTable", WritesMeanwhile)
    allowlist.compile()
    monkeypatch.undo()
    assert allowlist._lookup is not None and waiting == [allowlist]  # used, and not asked for again
    anew = AllowlistRecord("project", "p", True, allowlist.entries, threading.RLock())
    addresses = probes(2000, rng, networks + arriving) + edges(arriving)
    added = {f"new{i}" for i in range(len(arriving))}
    assert len(added & {matched(allowlist, a) for a in addresses}) > len(added) // 2
    for address in addresses:
        assert matched(allowlist, address) == matched(anew, address), address
