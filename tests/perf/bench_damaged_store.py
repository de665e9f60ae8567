"""A damaged store at launch: time from process start to the console's selftest answer (the damage found,
moved aside and explained, a fresh sandbox started, a prompt answered), against a clean home in the same run.
The goal: the message and a working Playground within 5 s of launch.

Run: python -m tests.perf.bench_damaged_store   (offscreen; prints figures; not a timed test)
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.forked_python import run_python
from tests.perf.tiny import TINY, size

RUNS = size(5, 1)


def launch(home: Path, bytecode: Path) -> tuple[float, dict[str, object]]:
    """Seconds from launch to the selftest's line, and the line."""
    # Compiled bytecode, as an installed console has it (see bench_startup): with PYTHONDONTWRITEBYTECODE,
    # set on these machines, every launch compiled the console's modules from source (~1 s under load),
    # which no person's launch pays. The caches go to a folder of the run's own.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    # Tiny: the project's own bytecode, which the test run keeps, instead of compiling all again; and the
    # console this process forked, not a new interpreter (tests/forked_python.py): a check, not a figure.
    env = env | {"QT_QPA_PLATFORM": "offscreen"} | ({} if TINY else {"PYTHONPYCACHEPREFIX": str(bytecode)})
    started = time.perf_counter()
    done = run_python(["-m", "app", "--selftest", "--home", str(home)], fork=TINY, env=env, timeout=60)
    return time.perf_counter() - started, json.loads(done.stdout.strip().splitlines()[-1])


def damage(home: Path) -> None:
    for path in (home / "data" / "sandbox" / "sandbox.sqlite3", home / "data" / "conversations.sqlite3"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(200_000))


def main() -> None:
    figures: dict[str, list[float]] = {"clean": [], "damaged": []}
    windows: dict[str, list[float]] = {"clean": [], "damaged": []}
    with tempfile.TemporaryDirectory() as caches:
        for _ in range(RUNS):  # interleaved, so drift in the machine's speed hits both alike
            for kind in figures:
                with tempfile.TemporaryDirectory() as folder:
                    home = Path(folder)
                    if not TINY:  # a first start makes the stores (and bytecode); then measured
                        launch(home, Path(caches))
                    if kind == "damaged":
                        damage(home)
                    seconds, line = launch(home, Path(caches))
                    assert line["ok"], line
                    if kind == "damaged":
                        assert any(".damaged-" in p.name for p in (home / "data").iterdir())
                figures[kind].append(seconds)
                windows[kind].append(float(str(line["start_to_window_s"])))
    for kind, values in figures.items():
        print(
            f"{kind:8} launch to a selftest answer: median {statistics.median(values):.2f} s,"
            f" max {max(values):.2f} s (window shown at {statistics.median(windows[kind]):.2f} s)"
        )
    ratio = statistics.median(figures["damaged"]) / statistics.median(figures["clean"])
    print(f"damaged / clean: {ratio:.2f}x (goal: the damaged launch answers within 5 s)")


if __name__ == "__main__":
    main()
