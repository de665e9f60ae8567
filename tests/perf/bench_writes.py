"""Admin writes: their cost as the list grows, and what they do to streams running at the same time.

1. One add and one delete (through the API, each acknowledged only once on disk) at 10 entries and at
   10,000, median of many: the ratio should stay near 1 (it was ~17x at 1,000 and ~40x at 3,000).
2. 200 concurrent streams for a fixed time, alone and then with 50 concurrent admin writers in another
   process (paced at 600 writes/s in total): the streams' p99 time to first token with writers against
   without; the writers' acknowledged writes per second; afterwards every acknowledged entry is on the list
   once, and nothing else is.

The sandbox runs in its own process (tests/sandbox_process.py); clients are httpx async. Bounded: each
phase lasts PHASE_SECONDS. Run: python -m tests.perf.bench_writes   (prints figures; not a timed test)
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import sqlite3
import ssl
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from tests.perf.tiny import size
from tests.sandbox_process import spawn_sandbox

STREAMS = size(200, 3)
WRITERS = size(50, 2)
WRITES_PER_SECOND = size(
    600, 20
)  # the writers' pace in total; as fast as they can would only measure a full CPU
PHASE_SECONDS = size(8.0, 0.3)
SAMPLES = size(150, 3)  # add-and-delete pairs per list size
BIG = size(10_000, 50)
# Tiny: a token every 5 ms, so a stream begun before a phase ends does not hold it open for seconds after.
STREAM_DELAY_MS = size("50", "5")
SERVER_OPTIONS = (
    "--rate-limit",
    "1000000000",
    "--max-entries",
    "1000000",
    "--stream-delay-ms",
    STREAM_DELAY_MS,
)
# Time for the streams' clients (and the writers' clients, in their process, which has started by then) to be
# made before the loads begin together.
LEAD_SECONDS = size(0.5, 0.05)
WRITERS_LEAD_SECONDS = size(3.0, 0.05)
WARM_UP = size(5, 1)  # add-and-delete pairs per list size before the counted ones: the lists read in


def start() -> tuple[subprocess.Popen[str], dict[str, Any], Path]:
    folder = Path(tempfile.mkdtemp(prefix="bench-writes-"))
    process, creds = spawn_sandbox(folder, *SERVER_OPTIONS)
    return process, creds, folder / "data" / "sandbox.sqlite3"


def stop(process: subprocess.Popen[str], database: Path) -> None:
    """End the sandbox (killed if it does not stop) and remove its folder: called in `finally`."""
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout:
        process.stdout.close()
    shutil.rmtree(database.parent.parent, ignore_errors=True)


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process (Linux /proc), to show where a phase's time went."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# -- 1. one write at 10 and at 10,000 entries ----------------------------------------------------


def fill_directly(database: Path, scope: str, owner_id: str, count: int) -> None:
    """Bring a list to `count` entries in one transaction, as another process (the dashboard) may write;
    raising the generation tells the server to read its lists again."""
    db = sqlite3.connect(database, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    rows = [
        (
            f"ipal_{scope[0]}{i:08d}",
            scope,
            owner_id,
            f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}/32",
            "",
            0,
        )
        for i in range(count)
    ]
    db.executemany(
        "INSERT INTO entries (id, scope, owner_id, cidr, description, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    db.execute("UPDATE meta SET value = value + 1 WHERE name = 'allowlists_generation'")
    db.execute("COMMIT")
    db.close()


def add_and_delete(client: httpx.Client, entries_url: str, i: int) -> tuple[float, float]:
    started = time.perf_counter()
    answer = client.post(entries_url, json={"cidr": f"172.16.{i // 256}.{i % 256}/32"})
    added = time.perf_counter()
    assert answer.status_code == 201, answer.text
    assert client.delete(f"{entries_url}/{answer.json()['id']}").status_code == 200
    return added - started, time.perf_counter() - added


def one_write_by_list_size() -> None:
    """The organization's list holds 10 entries, the project's 10,000; writes alternate between them, so
    both sizes meet the same machine load (the machine is shared)."""
    process, creds, database = start()
    base, org, project = creds["base_url"], creds["org_id"], creds["project_id"]
    urls = {
        10: f"{base}/organizations/{org}/ip_allowlist/entries",
        BIG: f"{base}/organizations/{org}/projects/{project}/ip_allowlist/entries",
    }
    figures: dict[int, tuple[list[float], list[float]]] = {size: ([], []) for size in urls}
    try:
        fill_directly(database, "organization", org, 10)
        fill_directly(database, "project", project, BIG)
        with httpx.Client(headers={"authorization": f"Bearer {creds['admin_key']}"}, timeout=30) as client:
            for i in range(SAMPLES + WARM_UP):
                for size, url in urls.items():
                    add, delete = add_and_delete(client, url, i)
                    if i >= WARM_UP:  # the first ones read the lists in after the fill
                        figures[size][0].append(add)
                        figures[size][1].append(delete)
    finally:
        stop(process, database)
    print(f"One write through the API, {SAMPLES} each, the two sizes interleaved (ms)")
    print(f"{'entries':>8} {'add p50':>8} {'add p90':>8} {'del p50':>8} {'del p90':>8}")
    for size, (adds, deletes) in figures.items():
        print(
            f"{size:>8,} {statistics.median(adds) * 1e3:>8.2f} {percentile(adds, 0.9) * 1e3:>8.2f}"
            f" {statistics.median(deletes) * 1e3:>8.2f} {percentile(deletes, 0.9) * 1e3:>8.2f}"
        )
    (small_adds, small_deletes), (big_adds, big_deletes) = figures[10], figures[BIG]
    print(
        f"{BIG:,} vs 10: add {statistics.median(big_adds) / statistics.median(small_adds):.2f}x, "
        f"delete {statistics.median(big_deletes) / statistics.median(small_deletes):.2f}x (target <= 1.5x)"
    )
    print(f"load average: {' '.join(f'{figure:.2f}' for figure in os.getloadavg())}\n")


# -- 2. streams with and without writers ---------------------------------------------------------


async def stream_load(base_url: str, key: str, start_at: float, until: float) -> list[float]:
    """Time to the first text delta of every stream begun between start_at and until.

    A client per stream: httpx's pool scans its connections on every request, which with 200 of them cost
    the client process more than the server spent serving (measured: 7.5 s of client CPU to 1.4 s).
    """
    firsts: list[float] = []
    body = {"model": "service-pro", "input": "Say hello in 30 words", "stream": True}
    tls = ssl.create_default_context()  # made once: each client would load the CA bundle again (~25 ms)

    async def one_stream() -> None:
        async with httpx.AsyncClient(
            base_url=base_url, headers={"authorization": f"Bearer {key}"}, timeout=60, verify=tls
        ) as client:
            await asyncio.sleep(max(0.0, start_at - time.time()))
            while time.time() < until:
                sent = time.perf_counter()
                first = None
                async with client.stream("POST", "/responses", json=body) as answer:
                    async for (
                        chunk
                    ) in answer.aiter_raw():  # raw bytes: decoding lines costs more than serving
                        if first is None and b"response.output_text.delta" in chunk:
                            first = time.perf_counter() - sent
                if first is not None:
                    firsts.append(first)

    await asyncio.gather(*(one_stream() for _ in range(STREAMS)))
    return firsts


async def writer_load(base_url: str, key: str, org_id: str, start_at: float, until: float) -> dict[str, Any]:
    """WRITERS admins adding entries at WRITES_PER_SECOND in total, each on its own connection; a writer that
    falls behind its pace writes again at once (the rate reached is what the server allows)."""
    acknowledged: list[tuple[str, str]] = []
    failures: list[str] = []
    tls = ssl.create_default_context()

    async def one_writer(number: int) -> None:
        async with httpx.AsyncClient(
            base_url=base_url, headers={"authorization": f"Bearer {key}"}, timeout=60, verify=tls
        ) as client:
            interval = WRITERS / WRITES_PER_SECOND
            due = start_at + number * interval / WRITERS  # spread over the first interval
            i = 0
            while time.time() < until:
                await asyncio.sleep(max(0.0, due - time.time()))
                due += interval
                cidr = f"10.{100 + number}.{i // 256}.{i % 256}/32"
                i += 1
                try:
                    answer = await client.post(
                        f"/organizations/{org_id}/ip_allowlist/entries", json={"cidr": cidr}
                    )
                except httpx.HTTPError as error:
                    failures.append(f"{cidr}: {error!r}")
                    continue
                if answer.status_code == 201:
                    acknowledged.append((answer.json()["id"], cidr))
                else:
                    failures.append(f"{cidr}: {answer.status_code}")

    began, cpu = max(time.time(), start_at), time.process_time()
    await asyncio.gather(*(one_writer(n) for n in range(WRITERS)))
    return {
        "acknowledged": acknowledged,
        "failures": failures,
        "elapsed": time.time() - began,
        "cpu": time.process_time() - cpu,
    }


def run_writers(base_url: str, key: str, org_id: str, start_at: float, until: float) -> dict[str, Any]:
    return asyncio.run(writer_load(base_url, key, org_id, start_at, until))


def streams_and_writers() -> None:
    process, creds, database = start()
    base, org = creds["base_url"], creds["org_id"]
    try:
        with httpx.Client(
            base_url=base, headers={"authorization": f"Bearer {creds['admin_key']}"}, timeout=30
        ) as admin:
            # The organization's list on, holding loopback: every request goes through a real check of a list
            # that grows as the writers write.
            admin.post(f"/organizations/{org}/ip_allowlist/entries", json={"cidr": "127.0.0.1/32"})
            assert (
                admin.patch(f"/organizations/{org}/ip_allowlist", json={"enabled": True}).status_code == 200
            )
        # Alone, with writers, alone again: the machine is shared, so its load drifts; the two runs alone
        # bracket the one with writers.
        cpu: dict[str, tuple[float, float]] = {}  # phase -> (server, streams' client) CPU seconds
        alone: list[float] = []
        together: list[float] = []
        written: dict[str, Any] = {}
        for phase in ("alone", "with writers", "alone again"):
            server_cpu, client_cpu = cpu_seconds(process.pid), time.process_time()
            if phase == "with writers":
                with ProcessPoolExecutor(1) as pool:
                    pool.submit(os.getpid).result()  # the writers' process started
                    begin_at = time.time() + WRITERS_LEAD_SECONDS
                    writers = pool.submit(
                        run_writers, base, creds["admin_key"], org, begin_at, begin_at + PHASE_SECONDS
                    )
                    together = asyncio.run(
                        stream_load(base, creds["api_key"], begin_at, begin_at + PHASE_SECONDS)
                    )
                    written = writers.result()
            else:
                begin_at = time.time() + LEAD_SECONDS
                alone += asyncio.run(stream_load(base, creds["api_key"], begin_at, begin_at + PHASE_SECONDS))
            cpu[phase] = (cpu_seconds(process.pid) - server_cpu, time.process_time() - client_cpu)
        with httpx.Client(
            base_url=base, headers={"authorization": f"Bearer {creds['admin_key']}"}, timeout=60
        ) as admin:
            listed = admin.get(f"/organizations/{org}/ip_allowlist").json()["entries"]
    finally:
        stop(process, database)

    print(f"{STREAMS} streams for {PHASE_SECONDS:.0f} s, time to first token (ms)")
    print(f"{'':<22} {'streams':>8} {'p50':>8} {'p99':>8}")
    for name, firsts in (("alone (both runs)", alone), (f"with {WRITERS} writers", together)):
        print(
            f"{name:<22} {len(firsts):>8,} {statistics.median(firsts) * 1e3:>8.1f} {percentile(firsts, 0.99) * 1e3:>8.1f}"
        )
    print(
        f"p99 with writers / alone: {percentile(together, 0.99) / percentile(alone, 0.99):.2f}x (target <= 1.5x)"
    )
    acknowledged = written["acknowledged"]
    rate = len(acknowledged) / written["elapsed"]
    print(
        f"writers: {len(acknowledged):,} acknowledged adds in {written['elapsed']:.1f} s = {rate:,.0f}/s (target >= 500/s)"
    )
    for phase, (server_cpu, client_cpu) in cpu.items():
        print(f"CPU seconds {phase}: server {server_cpu:.1f}, streams' client {client_cpu:.1f}", end="")
        print(f", writers' client {written['cpu']:.1f}" if phase == "with writers" else "")
    print(f"writers' failures: {len(written['failures'])} {written['failures'][:3]}")
    on_list = [(entry["id"], entry["cidr"]) for entry in listed if entry["cidr"] != "127.0.0.1/32"]
    cidrs = [cidr for _, cidr in on_list]
    missing = set(acknowledged) - set(on_list)
    print(
        f"afterwards: {len(on_list):,} entries on the list, {len(missing)} acknowledged missing, "
        f"{len(cidrs) - len(set(cidrs))} doubled, {len(set(on_list) - set(acknowledged))} never acknowledged"
    )


def main() -> None:
    one_write_by_list_size()
    streams_and_writers()


if __name__ == "__main__":
    main()
