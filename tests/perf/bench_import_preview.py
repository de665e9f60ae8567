"""The import preview of 1,000 lines: planned through the entry index, against the linear scan it replaced
(each line related to every entry and every line accepted before it), in the same run.
Run: python -m tests.perf.bench_import_preview   (the linear scan is skipped at 100,000 entries: ~6 min)
"""

from __future__ import annotations

import ipaddress
import random
import time
from typing import Any

from app.netrules import parse_entry, relate
from app.netrules.parse import Network
from app.netrules.transfer import SourceLine, plan_import
from tests.perf.bench_allowlist_table import entries
from tests.perf.tiny import size

LINES = size(1_000, 20)
LIST_SIZES = size((1_000, 10_000, 100_000), (50, 200))


def linear_plan(lines: list[SourceLine], existing: list[dict[str, Any]]) -> int:
    """The relations part of the old plan_import: a scan of the list and the accepted lines per line."""
    known = [(entry["id"], parse_entry(entry["cidr"])) for entry in existing]
    accepted: list[tuple[str, Network]] = []
    related = 0
    for line in lines:
        network = parse_entry(line.text)
        related += len(relate(network, known + accepted))
        accepted.append((f"line {line.number}", network))
    return related


def main() -> None:
    rng = random.Random(3)
    lines = [
        SourceLine(i + 2, str(ipaddress.ip_network((rng.getrandbits(32), rng.randint(16, 32)), strict=False)))
        for i in range(LINES)
    ]
    print(f"{'entries on the list':>20}  {'indexed':>10}  {'linear scan':>12}  speed-up")
    for count in LIST_SIZES:
        existing = entries(count)
        started = time.perf_counter()
        plan_import(lines, existing, 1_000_000)
        indexed = time.perf_counter() - started
        if count <= 10_000:
            started = time.perf_counter()
            linear_plan(lines, existing)
            linear = time.perf_counter() - started
            print(
                f"{count:>20,}  {indexed * 1000:>7,.0f} ms  {linear * 1000:>9,.0f} ms  {linear / indexed:>7,.0f}x"
            )
        else:
            print(f"{count:>20,}  {indexed * 1000:>7,.0f} ms  {'(skipped)':>12}")


if __name__ == "__main__":
    main()
