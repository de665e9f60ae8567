"""Gateway throughput: refused (403) and allowed requests, against a bare Starlette route on the same server.

The sandbox runs in its own process with a 1,000-entry organization list; `wrk` (Debian package) loads
it over loopback for a few seconds per case. The baseline is /healthz, a Starlette route the gateway
passes straight through. Run: python -m tests.perf.bench_gateway
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from tests.sandbox_process import spawn_sandbox

DURATION = "3s"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url: str, headers: dict[str, str]) -> float:
    args = [
        "wrk",
        "-t1",
        "-c16",
        f"-d{DURATION}",
        *[part for k, v in headers.items() for part in ("-H", f"{k}: {v}")],
        url,
    ]
    output = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", output)
    assert found is not None, output
    return float(found.group(1))


def main() -> None:
    if shutil.which("wrk") is None:
        sys.exit("needs wrk: apt-get install wrk")
    server, creds = spawn_sandbox(
        Path(tempfile.mkdtemp()),
        "--trust-proxy",
        "127.0.0.1/32",
        "--rate-limit",
        "100000000",
        "--max-entries",
        "5000",
    )
    try:
        base, org = creds["base_url"], creds["org_id"]
        admin = httpx.Client(
            base_url=base,
            headers={"authorization": f"Bearer {creds['admin_key']}", "x-forwarded-for": "198.51.100.7"},
        )
        for i in range(999):
            admin.post(
                f"/organizations/{org}/ip_allowlist/entries", json={"cidr": f"10.{i // 250}.{i % 250}.0/24"}
            )
        admin.post(f"/organizations/{org}/ip_allowlist/entries", json={"cidr": "198.51.100.0/24"})
        admin.patch(f"/organizations/{org}/ip_allowlist", json={"enabled": True})
        key = {"authorization": f"Bearer {creds['api_key']}"}
        rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
        figures: list[tuple[float, float, float]] = []
        costs: list[tuple[float, float, float]] = []  # the server's CPU µs per request, per case

        def measured(url: str, headers: dict[str, str]) -> tuple[float, float]:
            before = cpu_seconds(server.pid)
            rate = wrk(url, headers)
            used = cpu_seconds(server.pid) - before
            return rate, used / (rate * float(DURATION.removesuffix("s"))) * 1e6

        print(
            f"{'round':>5} {'bare req/s':>11} {'allowed':>8} {'vs bare':>8} {'refused':>8} {'vs bare':>8}   server CPU µs/request: bare, allowed, refused"
        )
        for number in range(1, rounds + 1):
            bare, bare_cost = measured(base.removesuffix("/v1") + "/healthz", {})
            allowed, allowed_cost = measured(base + "/models", {**key, "x-forwarded-for": "198.51.100.7"})
            refused, refused_cost = measured(base + "/models", {**key, "x-forwarded-for": "203.0.113.9"})
            figures.append((bare, allowed, refused))
            costs.append((bare_cost, allowed_cost, refused_cost))
            print(
                f"{number:>5} {bare:>11,.0f} {allowed:>8,.0f} {allowed / bare:>7.2f}x "
                f"{refused:>8,.0f} {refused / bare:>7.2f}x   {bare_cost:.0f}, {allowed_cost:.0f}, {refused_cost:.0f}"
            )
        allowed_ratios = sorted(allowed / bare for bare, allowed, _ in figures)
        refused_ratios = sorted(refused / bare for bare, _, refused in figures)
        print(
            f"allowed (list + key + rate limit, expiry and usage counting on): "
            f"median {statistics.median(allowed_ratios):.2f}x of the bare route "
            f"(min {allowed_ratios[0]:.2f}, max {allowed_ratios[-1]:.2f})"
        )
        print(
            f"refused (403 ip_not_allowed): median {statistics.median(refused_ratios):.2f}x "
            f"(min {refused_ratios[0]:.2f}, max {refused_ratios[-1]:.2f})"
        )
        # The server's CPU per request does not move with the machine's other load as throughput does.
        allowed_cpu = sorted(bare / allowed for bare, allowed, _ in costs)
        refused_cpu = sorted(bare / refused for bare, _, refused in costs)
        print(
            f"by server CPU per request (bare / case): allowed median {statistics.median(allowed_cpu):.2f}x "
            f"(min {allowed_cpu[0]:.2f}, max {allowed_cpu[-1]:.2f}), refused median "
            f"{statistics.median(refused_cpu):.2f}x (min {refused_cpu[0]:.2f}, max {refused_cpu[-1]:.2f})"
        )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
