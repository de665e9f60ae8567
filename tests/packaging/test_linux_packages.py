"""Builds the Linux packages with PyInstaller and tests them as installed (packaging/linux/*.sh).

Marked `packaging`: it runs only when selected (`pytest -m packaging`, see conftest.py), with PyInstaller
installed (`pip install -e '.[packaging]'`), on Linux with dpkg-deb; never in the default run. It takes
about six minutes (lintian, where installed, checks the .deb too).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.packaging,
    pytest.mark.skipif(
        importlib.util.find_spec("PyInstaller") is None, reason="PyInstaller is not installed"
    ),
    pytest.mark.skipif(
        not sys.platform.startswith("linux") or not shutil.which("dpkg-deb"), reason="Linux only"
    ),
]


@pytest.mark.timeout(2400)  # a build, lintian and two installs: minutes, past the suite's per-test limit
def test_build_then_install_selftest_and_remove() -> None:
    env = {
        **os.environ,
        "VENV": str(Path(sys.prefix)),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/sbin:/usr/bin:/sbin:/bin')}",
    }
    built = subprocess.run(
        ["bash", "packaging/linux/build.sh"], cwd=ROOT, capture_output=True, text=True, timeout=1200, env=env
    )
    assert built.returncode == 0, built.stderr[-3000:]
    sizes = json.loads(built.stdout.strip().splitlines()[-1])
    print(sizes)
    # Measured from a developer's venv (dev tools and the `local` extra installed): 116 MB and 36 MB.
    assert sizes["folder_mb"] <= 120 and sizes["deb_mb"] <= 40
    if shutil.which("lintian"):  # Debian's checks: answered by the package or, for a bundle, its overrides
        linted = subprocess.run(
            ["lintian", sizes["deb"]], cwd=ROOT, capture_output=True, text=True, timeout=900
        )
        said = [line for line in linted.stdout.splitlines() if line[:2] in ("E:", "W:")]
        assert said == [], "\n".join(said[:20])
    tested = subprocess.run(
        ["bash", "packaging/linux/test_packages.sh"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert tested.returncode == 0, tested.stdout[-2000:] + tested.stderr[-2000:]
    checks = [json.loads(line) for line in tested.stdout.splitlines() if line.startswith("{")]
    print(*checks, sep="\n")
    selftests = [c["result"] for c in checks if "selftest" in c["check"]]
    assert selftests and all(result["ok"] for result in selftests)
