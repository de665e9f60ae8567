"""Start-up: process start to window shown, and resident memory, against a bare PySide6 window in the same run.

Run: python -m tests.perf.bench_startup   (offscreen; prints figures; not a timed test)
     python -m tests.perf.bench_startup --frozen dist/service-console/service-console
     (adds the frozen app, built by packaging/linux/build.sh, to the same run)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

RUNS = 11
BARE = (
    "import time, json\n"
    "from PySide6.QtWidgets import QApplication, QMainWindow\n"
    "app = QApplication([])\n"
    "window = QMainWindow(); window.resize(1100, 800); window.show()\n"
    "shown = time.time()\n"
    "app.processEvents()\n"
    "rss = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS:')][0] / 1024\n"
    "print(json.dumps({'window_shown_epoch': shown, 'rss_mb': rss}))\n"
)


def run(args: list[str]) -> tuple[float, float]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    spawned = time.time()
    output = subprocess.run(args, capture_output=True, text=True, env=env, check=True, timeout=120).stdout
    figures = json.loads(output.strip().splitlines()[-1])
    return figures["window_shown_epoch"] - spawned, figures["rss_mb"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--frozen", help="the frozen app's executable, measured in the same run")
    args = parser.parse_args()
    cases = [("bare PySide6 window", [sys.executable, "-c", BARE])]
    cases.append(("service-console from source", [sys.executable, "-m", "app", "--selftest"]))
    if args.frozen:
        cases.append(("service-console frozen", [args.frozen, "--selftest"]))
    # Interleaved (bare, console, bare, …) so that drift in the machine's speed hits every case alike.
    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in cases}
    for _ in range(RUNS):
        for name, command in cases:
            results[name].append(run(command))
    bare_time = statistics.median(t for t, _ in results["bare PySide6 window"])
    bare_best = min(t for t, _ in results["bare PySide6 window"])
    print(f"{'':<30} {f'median of {RUNS}':>14} {'vs bare':>8} {'best':>9} {'vs bare':>8} {'RSS MB':>8}")
    for name, figures in results.items():
        seconds = statistics.median(t for t, _ in figures)
        best = min(t for t, _ in figures)
        rss = statistics.median(r for _, r in figures)
        print(
            f"{name:<30} {seconds:>12.3f} s {seconds / bare_time:>7.2f}x {best:>7.3f} s {best / bare_best:>7.2f}x"
            f" {rss:>8.1f}"
        )
    print(
        "goal: within 1.5x of the bare window; the console's RSS is measured after streaming one answer "
        "with its embedded sandbox running"
    )


if __name__ == "__main__":
    main()
