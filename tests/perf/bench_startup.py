"""Start-up: process start to window shown, and resident memory, against a bare PySide6 window in the same run.

Run: python -m tests.perf.bench_startup   (offscreen; prints figures; not a timed test)
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

RUNS = 5
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
    bare = [run([sys.executable, "-c", BARE]) for _ in range(RUNS)]
    console = [run([sys.executable, "-m", "app", "--selftest"]) for _ in range(RUNS)]
    bare_time = statistics.median(t for t, _ in bare)
    console_time = statistics.median(t for t, _ in console)
    print(f"{'':<34} {f'to window (median of {RUNS})':>26} {'RSS MB':>8}")
    print(f"{'bare PySide6 window':<34} {bare_time:>24.3f} s {statistics.median(r for _, r in bare):>8.1f}")
    print(
        f"{'service-console (selftest)':<34} {console_time:>24.3f} s {statistics.median(r for _, r in console):>8.1f}"
    )
    print(
        f"ratio: {console_time / bare_time:.2f}x (goal 1.5x); console RSS is measured after streaming one answer "
        "with its embedded sandbox running"
    )


if __name__ == "__main__":
    main()
