"""A plan over 1,000 entries: `service-console allowlist plan FILE` against a sandbox whose organization list
holds 1,000 entries, the file changing 100 of them, and the same plan's parts alone (reading the file,
deciding the changes) against the reads it needs as the baseline, in the same run. The goal: at most 1 s.

Run: python -m tests.perf.bench_policy_plan [rounds]; BENCH_SIZE=tiny: 50 entries, one round.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.api.client import ServiceClient
from app.api.transport import ConnectionSettings
from app.core.cli.policy import PolicyCommands
from app.core.security.policy_file import ListPolicy, PolicyEntry, export_policy, load_policy
from app.core.security.policy_plan import plan_list
from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

ENTRIES = size(1000, 50)
ROUNDS = size(5, 1)


def cidr(i: int) -> str:
    return f"10.{i // 250}.{i % 250}.0/24"


async def one_round(settings: ConnectionSettings, org: str, path: Path) -> tuple[float, float, float]:
    """(the whole plan, its reads alone, file and decision alone) in seconds."""
    async with ServiceClient(settings, org) as client:
        started = time.perf_counter()
        outcome = await PolicyCommands(client).plan(path)
        whole = time.perf_counter() - started
        assert outcome.data["changes"], "the file differs from the list"
        started = time.perf_counter()
        current = await client.allowlists.get()
        await client.allowlists.projects()
        reads = time.perf_counter() - started
        started = time.perf_counter()
        policy = load_policy(path.read_text())
        plan_list(policy.lists[0], current, None)
        local = time.perf_counter() - started
    return whole, reads, local


def main() -> None:
    held = tempfile.TemporaryDirectory()  # removed at the end, whatever happens
    folder = Path(held.name)
    server, creds = spawn_sandbox(folder, "--max-entries", "5000", "--trust-proxy", "127.0.0.1/32")
    try:
        base, org = creds["base_url"], creds["org_id"]
        admin = {"authorization": f"Bearer {creds['admin_key']}", "x-forwarded-for": "198.51.100.7"}
        with httpx.Client(base_url=base, headers=admin, timeout=60) as http:
            batch = {"add": [{"cidr": cidr(i), "description": f"entry {i}"} for i in range(ENTRIES)]}
            assert http.post(f"/organizations/{org}/ip_allowlist/batch", json=batch).status_code == 200
        # The file: 10% of the entries gone, 10% new, the rest as listed.
        changed = ENTRIES // 10
        wanted = [PolicyEntry(cidr(i), f"entry {i}") for i in range(changed, ENTRIES + changed)]
        path = folder / "allowlists.toml"
        path.write_text(export_policy([ListPolicy(None, None, tuple(wanted))]))
        settings = ConnectionSettings(base, admin_key=creds["admin_key"], forwarded_for="198.51.100.7")
        rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
        results = [asyncio.run(one_round(settings, org, path)) for _ in range(rounds)]
        for name, index in (
            ("the whole plan", 0),
            ("its reads alone (baseline)", 1),
            ("file and decision", 2),
        ):
            figures = sorted(result[index] * 1000 for result in results)
            print(
                f"{name:>28}: median {statistics.median(figures):7.1f} ms "
                f"(min {figures[0]:.1f}, max {figures[-1]:.1f}, n={len(figures)}) over {ENTRIES:,} entries"
            )
        worst = max(result[0] for result in results)
        print(
            f"goal: at most 1 s; the slowest plan took {worst:.3f} s ({'met' if worst <= 1.0 else 'NOT met'})"
        )
        print(f"load average: {' '.join(f'{figure:.2f}' for figure in os.getloadavg())}")
    finally:
        server.terminate()
        server.wait()
        held.cleanup()


if __name__ == "__main__":
    main()
