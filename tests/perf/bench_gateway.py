"""Gateway throughput: refused (403) and allowed requests, against a bare Starlette route on the same server.

The sandbox runs in its own process with a 1,000-entry organization list; `wrk` (Debian package) loads
it over loopback for a few seconds per case. The baseline is /healthz, a Starlette route the gateway
passes straight through. Run: python -m tests.perf.bench_gateway
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from tests.sandbox_process import spawn_sandbox

DURATION = "4s"


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
        bare = wrk(base.removesuffix("/v1") + "/healthz", {})
        allowed = wrk(base + "/models", {**key, "x-forwarded-for": "198.51.100.7"})
        refused = wrk(base + "/models", {**key, "x-forwarded-for": "203.0.113.9"})
        print(f"{'case':<34} {'req/s':>8} {'vs bare':>8}")
        for name, rate in (
            ("bare Starlette route (/healthz)", bare),
            ("allowed: list + key + rate limit", allowed),
            ("refused: 403 ip_not_allowed", refused),
        ):
            print(f"{name:<34} {rate:>8,.0f} {rate / bare:>7.2f}x")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
