"""A damaged store at launch: time from process start to the console's selftest answer (the damage found,
moved aside and explained, a fresh sandbox started, a prompt answered), against a clean home in the same run.
The goal: the message and a working Playground within 5 s of launch.

Run: python -m tests.perf.bench_damaged_store   (offscreen; prints figures; not a timed test)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 5


def launch(home: Path) -> tuple[float, dict[str, object]]:
    """Seconds from launch to the selftest's line, and the line."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "app", "--selftest", "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    return time.perf_counter() - started, json.loads(done.stdout.strip().splitlines()[-1])


def damage(home: Path) -> None:
    for path in (home / "data" / "sandbox" / "sandbox.sqlite3", home / "data" / "conversations.sqlite3"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(200_000))


def main() -> None:
    figures: dict[str, list[float]] = {"clean": [], "damaged": []}
    for _ in range(RUNS):
        for kind in figures:
            with tempfile.TemporaryDirectory() as folder:
                home = Path(folder)
                launch(home)  # a first start makes the stores; the measured one opens them
                if kind == "damaged":
                    damage(home)
                seconds, line = launch(home)
                assert line["ok"], line
                if kind == "damaged":
                    assert any(".damaged-" in p.name for p in (home / "data").iterdir())
                figures[kind].append(seconds)
    for kind, values in figures.items():
        print(
            f"{kind:8} launch to a selftest answer: median {statistics.median(values):.2f} s, max {max(values):.2f} s"
        )
    ratio = statistics.median(figures["damaged"]) / statistics.median(figures["clean"])
    print(f"damaged / clean: {ratio:.2f}x (goal: the damaged launch answers within 5 s)")


if __name__ == "__main__":
    main()
