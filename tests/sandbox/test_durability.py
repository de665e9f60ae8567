"""Acknowledged writes survive kill -9, and concurrent writers lose nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from app.sandbox.store.aggregates import Store
from app.sandbox.store.database import run_blocking
from tests.fork_server import ForkServer
from tests.sandbox_process import spawn_sandbox


def test_acknowledged_entries_survive_kill_9(tmp_path: Path, python_m: ForkServer) -> None:
    process, creds = spawn_sandbox(tmp_path, "--rate-limit", "100000", forks=python_m)
    acknowledged: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(worker: int) -> None:
        with httpx.Client(
            base_url=creds["base_url"], headers={"authorization": f"Bearer {creds['admin_key']}"}
        ) as client:
            for i in range(250):
                if stop.is_set():
                    return
                try:
                    response = client.post(
                        f"/organizations/{creds['org_id']}/ip_allowlist/entries",
                        json={"cidr": f"10.{worker}.{i}.0/24"},
                    )
                except httpx.HTTPError:
                    return
                if response.status_code == 201:
                    with lock:
                        acknowledged.append(response.json()["id"])

    threads = [threading.Thread(target=writer, args=(worker,)) for worker in range(4)]
    for thread in threads:
        thread.start()
    # Every poll has a deadline: writers that stopped early (a refused connection) must fail the test, not hang it.
    deadline = time.monotonic() + 60
    while len(acknowledged) < 150 and any(t.is_alive() for t in threads) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(acknowledged) >= 150, f"only {len(acknowledged)} writes acknowledged before the kill"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.stdout is not None
    process.stdout.close()
    stop.set()
    for thread in threads:
        thread.join()

    store = Store(tmp_path / "data" / "sandbox.sqlite3")
    stored = {entry.id for entry in store.allowlists.get("organization", creds["org_id"]).entries}
    assert set(acknowledged) <= stored
    assert len(stored) >= 150
    store.close()


def test_concurrent_writers_in_two_processes_lose_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "sandbox.sqlite3")
    creds = store.organizations.bootstrap()
    script = (
        "import asyncio, sys; from pathlib import Path; from app.sandbox.store.aggregates import Store\n"
        "s = Store(Path(sys.argv[1]))\n"
        "async def add(): [await s.allowlists.add_entry("
        "'organization', sys.argv[2], f'172.20.{i}.0/24', 'other process') for i in range(200)]\n"
        "asyncio.run(add())\n"
    )
    other = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "sandbox.sqlite3"), creds.org_id])
    for i in range(200):
        run_blocking(
            store.allowlists.add_entry("organization", creds.org_id, f"172.21.{i}.0/24", "this process")
        )
    assert other.wait(timeout=60) == 0
    entries = store.allowlists.get("organization", creds.org_id).entries
    assert len(entries) == 400
    store.close()
