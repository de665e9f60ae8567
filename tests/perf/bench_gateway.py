"""Gateway throughput: refused (403) and allowed requests, against a bare Starlette route on the same server.

The sandbox runs in its own process with a 1,000-entry organization list; `wrk` (Debian package) loads
it over loopback for a few seconds per run. The baseline is /healthz, a Starlette route the gateway
passes straight through. Each case is measured in A/B pairs with a bare run next to it, the order swapped
every round, and the median and spread of the pairs' ratios are printed, by throughput and by the server's
CPU per request. Run: python -m tests.perf.bench_gateway [rounds]

Refused requests are recorded (per source and minute, in memory, written in batches: store/traffic.py); the
"refused, many sources" case sends each request from one of 1,000 addresses in turn (a wrk script), so the
record makes a new key for most of them, its most expensive path. BENCH_SIZE=tiny runs one short round on a
short list, each wrk run a quarter second paced to a few dozen requests instead of saturating the cores: a
check that the bench works, not a figure.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import httpx

from tests.perf.tiny import TINY, size
from tests.perf.tls_load import requests_per_second
from tests.sandbox_process import spawn_sandbox

DURATION = size("3s", "1s")  # wrk counts whole seconds
# How long a run lasts: wrk's own duration, or at the tiny size a quarter of its shortest, the run cut short
# (interrupted: wrk stops and prints its figures as at the end of a run), every case's path still taken.
RUN_SECONDS = size(3.0, 0.25)
TLS_SECONDS = size(3.0, 0.02)  # the TLS load generator's runs (tls_load.py), which count any fraction
TLS_CONNECTIONS = size(8, 1)
ROUNDS = size(6, 1)  # A/B pairs per case; the order of each pair swaps every round
ENTRIES = size(999, 20)
# Each request from the next of 1,000 refused addresses (198.18.0.0/22, which no entry holds).
MANY_SOURCES = """
counter = 0
request = function()
  counter = counter + 1
  local n = counter % 1000
  wrk.headers["X-Forwarded-For"] = "198.18." .. math.floor(n / 250) .. "." .. (n % 250)
  return wrk.format(nil)
end
"""
# At the tiny size one connection waits this long before each request, so a run sends a few dozen requests
# (every case's path still taken) rather than loading both cores.
PACE = size("", "delay = function() return 4 end\n")
CONNECTIONS = size(16, 1)


class Run(NamedTuple):
    rate: float  # requests per second, as wrk counted them
    cpu_us: float  # the server's CPU time per request


class Pair(NamedTuple):
    bare: Run
    case: Run

    @property
    def ratio(self) -> float:
        return self.case.rate / self.bare.rate


class Case(NamedTuple):
    url: str
    headers: dict[str, str]
    script: str = ""  # a wrk Lua script's source


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url: str, headers: dict[str, str], duration: str = DURATION, script: str = "") -> float:
    lua = script + PACE
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as source:
        source.write(lua)
        source.flush()
        args = [
            "wrk",
            "-t1",
            f"-c{CONNECTIONS}",
            f"-d{duration}",
            *[part for k, v in headers.items() for part in ("-H", f"{k}: {v}")],
            *(["-s", source.name] if lua else []),
            url,
        ]
        if TINY:
            output = interrupted(args, RUN_SECONDS)
        else:
            output = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    found = re.search(r"Requests/sec:\s+([\d.]+)", output)
    assert found is not None, output
    return float(found.group(1))


def interrupted(args: list[str], seconds: float) -> str:
    """wrk's output for a run cut short after `seconds`: interrupted once it has taken over SIGINT (Linux
    /proc: a signal it catches), before which the signal would end it with nothing printed."""
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        status = Path(f"/proc/{process.pid}/status")
        caught = 1 << (signal.SIGINT - 1)
        while process.poll() is None and not int(_field(status.read_text(), "SigCgt"), 16) & caught:
            time.sleep(0.005)
        time.sleep(seconds)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, args, out, err)
    return out


def _field(status: str, name: str) -> str:
    """One field of a /proc/PID/status text."""
    found = re.search(rf"^{name}:\s*(\S+)", status, re.MULTILINE)
    assert found is not None, status
    return found.group(1)


def measure(pid: int, case: Case) -> Run:
    before = cpu_seconds(pid)
    rate = wrk(case.url, case.headers, script=case.script)
    used = cpu_seconds(pid) - before
    return Run(rate, used / (rate * RUN_SECONDS) * 1e6)


def summary(ratios: list[float]) -> str:
    """Median and spread (least, greatest) of a case's ratios."""
    ordered = sorted(ratios)
    return f"median {statistics.median(ordered):.2f}x (min {ordered[0]:.2f}, max {ordered[-1]:.2f}, n={len(ordered)})"


def cpu_line(name: str, pairs: list[Pair]) -> str:
    """A case's figure by server CPU per request. The process clock counts in ticks (10 ms here), so a run
    of a few dozen requests (the tiny size) can read no CPU at all: such pairs have no ratio and are left out."""
    timed = [pair for pair in pairs if pair.bare.cpu_us > 0 and pair.case.cpu_us > 0]
    if not timed:
        return f"{name} by server CPU per request: no pair ran long enough for the process clock to count"
    ratios = [pair.bare.cpu_us / pair.case.cpu_us for pair in timed]
    extra = statistics.median(pair.case.cpu_us - pair.bare.cpu_us for pair in timed)
    return (
        f"{name} by server CPU per request (bare / case): {summary(ratios)}; "
        f"the case costs {extra:+.0f} µs (median) over the bare route"
    )


def mutual_tls_pairs(rounds: int) -> list[Pair]:
    """Pairs of (bare /healthz, allowed /v1/models with a certificate active) on a sandbox serving TLS."""
    import trustme

    held = tempfile.TemporaryDirectory()  # removed at the end, whatever happens
    folder = Path(held.name)
    server_ca, client_ca = trustme.CA(), trustme.CA()
    issued = server_ca.issue_cert("127.0.0.1")
    issued.cert_chain_pems[0].write_to_path(str(folder / "server.pem"))
    issued.private_key_pem.write_to_path(str(folder / "server.key"))
    extra = ["--rate-limit", "100000000", "--tls-cert", str(folder / "server.pem")]
    server, creds = spawn_sandbox(folder, *extra, "--tls-key", str(folder / "server.key"))
    try:
        context = ssl.create_default_context()
        server_ca.configure_trust(context)
        client_ca.issue_cert("bench@example.com").configure_cert(context)
        base, org = creds["base_url"], creds["org_id"]
        admin_headers = {"authorization": f"Bearer {creds['admin_key']}"}
        with httpx.Client(
            base_url=f"{base}/organizations/{org}", headers=admin_headers, verify=context
        ) as admin:
            made = admin.post(
                "/certificates", json={"certificate": client_ca.cert_pem.bytes().decode()}
            ).json()
            admin.post("/certificates/activate", json={"certificate_ids": [made["id"]]}).raise_for_status()
        key = {"authorization": f"Bearer {creds['api_key']}"}
        bare, allowed = base.removesuffix("/v1") + "/healthz", base + "/models"
        for url, headers in () if TINY else ((bare, {}), (allowed, key)):  # warm: caches, TLS session state
            requests_per_second(url, headers, context, 1.0)

        def tls_measure(url: str, headers: dict[str, str]) -> Run:
            before = cpu_seconds(server.pid)
            rate = requests_per_second(url, headers, context, TLS_SECONDS, TLS_CONNECTIONS)
            used = cpu_seconds(server.pid) - before
            return Run(rate, used / (rate * TLS_SECONDS) * 1e6)

        pairs = []
        for number in range(1, rounds + 1):
            if number % 2:
                bare_run, case_run = tls_measure(bare, {}), tls_measure(allowed, key)
            else:
                case_run, bare_run = tls_measure(allowed, key), tls_measure(bare, {})
            pairs.append(Pair(bare_run, case_run))
            print(
                f"{number:>5} {'mtls':>8} {bare_run.rate:>11,.0f} {case_run.rate:>11,.0f} "
                f"{pairs[-1].ratio:>5.2f}x   {bare_run.cpu_us:.0f}, {case_run.cpu_us:.0f}"
            )
        return pairs
    finally:
        server.terminate()
        server.wait()
        held.cleanup()


def main() -> None:
    if shutil.which("wrk") is None:
        sys.exit("needs wrk: apt-get install wrk")
    folder = tempfile.TemporaryDirectory()
    server, creds = spawn_sandbox(
        Path(folder.name),
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
        for i in range(ENTRIES):
            admin.post(
                f"/organizations/{org}/ip_allowlist/entries", json={"cidr": f"10.{i // 250}.{i % 250}.0/24"}
            )
        admin.post(f"/organizations/{org}/ip_allowlist/entries", json={"cidr": "198.51.100.0/24"})
        admin.patch(f"/organizations/{org}/ip_allowlist", json={"enabled": True})
        key = {"authorization": f"Bearer {creds['api_key']}"}
        rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
        allowed = Case(base + "/models", {**key, "x-forwarded-for": "198.51.100.7"})
        refused = Case(base + "/models", {**key, "x-forwarded-for": "203.0.113.9"})
        many = Case(base + "/models", key, MANY_SOURCES)
        bare = Case(base.removesuffix("/v1") + "/healthz", {})
        cases = {"allowed": allowed, "refused": refused, "many": many}
        for case in () if TINY else (bare, *cases.values()):  # warm: the lookup table, caches, connections
            wrk(case.url, case.headers, "1s", case.script)
        pairs: dict[str, list[Pair]] = {name: [] for name in cases}
        print(
            f"{'round':>5} {'case':>8} {'bare req/s':>11} {'case req/s':>11} {'ratio':>6}   server CPU µs/request: bare, case"
        )
        for number in range(1, rounds + 1):
            # At the tiny size one bare run serves every case: the run checks that each case works, and
            # two of the six seconds of wrk (both cores busy) go.
            shared = measure(server.pid, bare) if TINY else None
            for name, case in cases.items():
                # A/B pairs, the order swapped every round: a burst of other load lands on both sides alike.
                if shared is not None:
                    bare_run, case_run = shared, measure(server.pid, case)
                elif number % 2:
                    bare_run, case_run = measure(server.pid, bare), measure(server.pid, case)
                else:
                    case_run, bare_run = measure(server.pid, case), measure(server.pid, bare)
                pair = Pair(bare_run, case_run)
                pairs[name].append(pair)
                print(
                    f"{number:>5} {name:>8} {bare_run.rate:>11,.0f} {case_run.rate:>11,.0f} {pair.ratio:>5.2f}x   "
                    f"{bare_run.cpu_us:.0f}, {case_run.cpu_us:.0f}"
                )
        pairs["mtls"] = mutual_tls_pairs(rounds)
        labels = {
            "allowed": "allowed (list + key + rate limit, expiry and usage counting on)",
            "mtls": "allowed over TLS with a certificate active (client certificate + key + rate limit)",
            "refused": "refused (403 ip_not_allowed, recorded)",
            "many": "refused, many sources (each recorded under a new key)",
        }
        for name, label in labels.items():
            print(f"{label}: {summary([pair.ratio for pair in pairs[name]])} of the bare route by throughput")
        # The server's CPU per request moves far less with the machine's other load than throughput does.
        for name in labels:
            print(cpu_line(name, pairs[name]))
        print(f"load average: {' '.join(f'{figure:.2f}' for figure in os.getloadavg())}")
    finally:
        server.terminate()
        server.wait()
        folder.cleanup()


if __name__ == "__main__":
    main()
