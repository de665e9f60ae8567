"""The suite's own rules (pyproject [tool.pytest.ini_options]) hold: a stuck test fails, an xfail that passes fails.

Two planted tests run in a pytest of their own under the project's configuration, the per-test deadline cut
from 60 s to 1 s so the check takes a few seconds.

That pytest is a new interpreter, not a child forked from a preloaded parent (tests/fork_server.py): what it
spends is importing pytest and its plugins, once, and a parent would import the same once for this one run.
schemathesis's plugin is left out, as the session these tests run in leaves it out (packaging/dev.sh): it
has no part in the rules checked here (~0.3 CPU-s of that pytest).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLANTED = """
import time

import pytest


def test_stuck() -> None:
    time.sleep(30)


@pytest.mark.xfail(reason="a bug, since fixed")
def test_fixed() -> None:
    pass
"""


def test_a_stuck_test_times_out_and_a_passing_xfail_fails(tmp_path: Path) -> None:
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "test_planted.py").write_text(PLANTED)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-o",
        "timeout=0.3",  # the stuck test's wait: any limit shows it is enforced
        "-o",
        "testpaths=.",
        "-p",
        "no:schemathesis",
    ]
    result = subprocess.run(
        [*command, "-n", "0", "test_planted.py"],
        cwd=tmp_path,
        # pyproject's addopts load the project's own plugin (tests.qt_free), found from the checkout
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "FAILED test_planted.py::test_stuck - Failed: Timeout" in result.stdout, result.stdout
    assert "FAILED test_planted.py::test_fixed" in result.stdout and "XPASS(strict)" in result.stdout, (
        result.stdout
    )
