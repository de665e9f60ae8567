"""A real window manager's focus change makes the Security tab read the list again.

Qt tests run offscreen (one QApplication per process, its platform fixed at start), where no window ever
gains or loses the focus. This test starts Xvfb and openbox (Debian packages that `packaging/dev.sh test`
installs), and runs the console's side, `real_wm_focus.py` beside this file, in a pytest of its own on the
real xcb platform; xdotool moves the focus as a person's click on another program's window would.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

TOOLS = ("Xvfb", "openbox", "xdotool")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def display() -> Iterator[str]:
    """A fresh X display (Xvfb picks a free number) with openbox managing its windows."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:  # packaging/dev.sh installs them; a machine set up by hand may lack them
        pytest.skip(f"needs {', '.join(missing)} (apt-get install xvfb openbox xdotool)")
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as said:
        name = f":{said.readline().strip()}"
    env = {**os.environ, "DISPLAY": name}
    with tempfile.TemporaryFile() as said_by_openbox:
        openbox = subprocess.Popen(["openbox"], env=env, stdout=subprocess.DEVNULL, stderr=said_by_openbox)
        try:
            # Under load (a CI machine's other jobs) openbox once took over 20 s to be ready.
            deadline = time.monotonic() + 90
            # xdotool can tell the desktop only once a window manager runs (it reads _NET_CURRENT_DESKTOP).
            while (
                asked := subprocess.run(["xdotool", "get_desktop"], env=env, capture_output=True)
            ).returncode:
                if openbox.poll() is not None or time.monotonic() > deadline:
                    said_by_openbox.seek(0)
                    pytest.fail(
                        f"openbox not ready on {name} (exit status {openbox.poll()}): it said "
                        f"{said_by_openbox.read()[-1000:]!r}; xdotool said {asked.stderr[-500:]!r}"
                    )
                time.sleep(0.1)
            yield name
        finally:
            for process in (openbox, xvfb):
                process.terminate()
                process.wait(timeout=10)


@pytest.mark.timeout(240)
def test_focus_moved_away_and_back_by_the_window_manager_reads_the_list_again(display: str) -> None:
    env = {
        **os.environ,
        "DISPLAY": display,
        "QT_QPA_PLATFORM": "xcb",
        "PYTHONPATH": str(ROOT),
        "PYTEST_ADDOPTS": "",
    }
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/gui/real_wm_focus.py"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=220,
    )
    assert run.returncode == 0 and re.search(r"^1 passed", run.stdout, re.MULTILINE), (
        run.stdout[-4000:] + run.stderr[-2000:]
    )
