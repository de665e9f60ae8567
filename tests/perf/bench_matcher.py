"""Membership lookups at 50 to 100,000 entries, in the same run:

- `gateway µs`: the sandbox gateway's lookup as it runs per request, with expiry and usage counting on
  (AllowlistRecord.match with count: a SegmentTable bisection, the expiry of the entry found, its counters);
- `index µs`: EntryIndex.contains (one dictionary lookup per prefix length present), which the console
  asks and the gateway used before;
- `linear µs`: a scan of `ipaddress` networks, the baseline.
Build times: the EntryIndex from the entries as the Admin API gives them (decoded JSON), and the gateway's
table compiled from it. Prefix lengths are random (16-32 for IPv4, 32-128 for IPv6): many lengths is the
index's worst case and the table's indifferent one; a tenth of the entries expire.

Run: python -m tests.perf.bench_matcher [repeats]   (prints figures; not a timed test)
"""

from __future__ import annotations

import ipaddress
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from app.netrules import EntryIndex, Network
from app.netrules.parse import Address
from app.netrules.segments import SegmentTable
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.entry import EntryRecord
from tests.perf.tiny import size

NOW = 1_800_000_000
LIST_SIZES = size((50, 1_000, 10_000, 100_000), (50, 200))
PROBES = size(20_000, 200)


def random_networks(count: int, rng: random.Random) -> list[Network]:
    networks: list[Network] = []
    for _ in range(count):
        if rng.random() < 0.7:
            prefix = rng.randint(16, 32)
            networks.append(ipaddress.ip_network((rng.getrandbits(32), prefix), strict=False))
        else:
            prefix = rng.randint(32, 128)
            networks.append(ipaddress.ip_network((rng.getrandbits(128), prefix), strict=False))
    return networks


def probes(count: int, rng: random.Random, networks: list[Network]) -> list[Address]:
    """Half inside an entry (the gateway's usual case: admitted), half random."""
    found: list[Address] = []
    for i in range(count):
        if i % 2:
            found.append(
                ipaddress.IPv4Address(rng.getrandbits(32))
                if rng.random() < 0.7
                else ipaddress.IPv6Address(rng.getrandbits(128))
            )
        else:
            network = networks[rng.randrange(len(networks))]
            found.append(network.network_address + rng.randrange(min(network.num_addresses, 1 << 30)))
    return found


def per_lookup(function: Callable[..., object], items: list[Any]) -> float:
    """CPU seconds of this thread per call: the machine is shared, and wall time there counts the others'
    turns on the cores (this figure matches the wall time of an idle machine within a few percent)."""
    start = time.thread_time()
    for item in items:
        function(item)
    return (time.thread_time() - start) / len(items)


def gateway_lookup(allowlist: AllowlistRecord) -> Callable[[Address], int]:
    """The call the gateway makes for a request one list applies to: look up, and count if admitted."""
    match = allowlist.match
    return lambda address: match(address, NOW, True)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else size(3, 1)
    rng = random.Random(7)
    print(
        f"{'entries':>8} {'index ms':>9} {'table ms':>9} {'gateway µs':>11} {'index µs':>9} "
        f"{'linear µs':>10} {'gateway vs linear':>18}"
    )
    for count in LIST_SIZES:
        networks = random_networks(count, rng)
        entries = [
            EntryRecord(f"ipal_{i}", n.with_prefixlen, "", 0, int(NOW) - 1 if i % 10 == 0 else None)
            for i, n in enumerate(networks)
        ]
        decoded = [{"id": entry.id, "cidr": entry.cidr} for entry in entries]
        addresses = probes(PROBES, rng, networks)
        linear_probes = addresses[: max(20, 200_000 // count)]
        rows: list[tuple[float, ...]] = []
        for _ in range(repeats):
            start = time.thread_time()  # CPU of this thread, as per_lookup
            index = EntryIndex.of_entries(decoded)
            build = time.thread_time() - start
            start = time.thread_time()
            SegmentTable(*index.rows())
            compile_time = time.thread_time() - start
            allowlist = AllowlistRecord("organization", "org", True, entries, threading.RLock())
            gateway = per_lookup(gateway_lookup(allowlist), addresses)
            indexed = per_lookup(index.contains, addresses)
            linear = per_lookup(
                lambda a, networks=networks: any(a in n for n in networks if n.version == a.version),
                linear_probes,
            )
            rows.append((build, compile_time, gateway, indexed, linear))
        spread = [(min(column), max(column)) for column in zip(*rows, strict=True)]
        (b0, b1), (c0, c1), (g0, g1), (i0, i1), (l0, l1) = spread
        print(
            f"{count:>8,} {b0 * 1e3:>4.0f}-{b1 * 1e3:<4.0f} {c0 * 1e3:>4.0f}-{c1 * 1e3:<4.0f} "
            f"{g0 * 1e6:>5.2f}-{g1 * 1e6:<5.2f} {i0 * 1e6:>4.2f}-{i1 * 1e6:<4.2f} "
            f"{l0 * 1e6:>5.1f}-{l1 * 1e6:<4.1f} {l0 / g0:>17,.0f}x"
        )
    print(f"(min-max of {repeats} runs each; gateway: match with counting, a tenth of the entries expired)")


if __name__ == "__main__":
    main()
