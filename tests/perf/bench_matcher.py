"""Membership lookups (EntryIndex.contains, the gateway's question) at 50 to 100,000 entries against a linear
`ipaddress` scan, in the same run.

Run: python -m tests.perf.bench_matcher   (prints figures; not a timed test)
"""

from __future__ import annotations

import ipaddress
import random
import time
from collections.abc import Callable
from typing import Any

from app.netrules import EntryIndex, parse_address


def random_networks(count: int, rng: random.Random) -> list[Any]:
    networks = []
    for _ in range(count):
        if rng.random() < 0.7:
            prefix = rng.randint(16, 32)
            networks.append(ipaddress.ip_network((rng.getrandbits(32), prefix), strict=False))
        else:
            prefix = rng.randint(32, 128)
            networks.append(ipaddress.ip_network((rng.getrandbits(128), prefix), strict=False))
    return networks


def probes(count: int, rng: random.Random) -> list[Any]:
    return [
        ipaddress.IPv4Address(rng.getrandbits(32))
        if rng.random() < 0.7
        else ipaddress.IPv6Address(rng.getrandbits(128))
        for _ in range(count)
    ]


def per_lookup(function: Callable[..., object], items: list[Any]) -> float:
    start = time.perf_counter()
    for item in items:
        function(item)
    return (time.perf_counter() - start) / len(items)


def main() -> None:
    rng = random.Random(7)
    print(
        f"{'entries':>8} {'build ms':>9} {'matcher µs':>11} {'+parse µs':>10} {'linear µs':>10} {'speed-up':>9}"
    )
    for count in (50, 1_000, 10_000, 100_000):
        networks = random_networks(count, rng)
        start = time.perf_counter()
        matcher = EntryIndex.of_entries(
            {"id": str(i), "cidr": n.with_prefixlen} for i, n in enumerate(networks)
        )
        build = time.perf_counter() - start
        addresses = probes(20_000, rng)
        texts = [str(address) for address in addresses]
        fast = per_lookup(matcher.contains, addresses)
        with_parse = per_lookup(lambda text, matcher=matcher: matcher.contains(parse_address(text)), texts)
        linear_probes = addresses[: max(20, 200_000 // count)]
        linear = per_lookup(
            lambda a, networks=networks: any(a in n for n in networks if n.version == a.version),
            linear_probes,
        )
        print(
            f"{count:>8,} {build * 1000:>9.1f} {fast * 1e6:>11.2f} {with_parse * 1e6:>10.2f} "
            f"{linear * 1e6:>10.1f} {linear / fast:>8,.0f}x"
        )


if __name__ == "__main__":
    main()
