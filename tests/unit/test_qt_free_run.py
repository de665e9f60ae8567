"""The Qt-free run (`--qt-free=only`, tests/qt_free.py) fails a test whose code imports Qt in any way.

Each run is a new interpreter's pytest, never a child forked from a preloaded parent (tests/fork_server.py):
what is checked is what importing does in a process that has imported nothing yet (Qt refused, or loaded
when allowed), which a parent's imports would decide in its place.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.qt_free import QT_FREE_TESTS, ROOT

PLANTED = """
import importlib

import pytest


@pytest.mark.parametrize("module", ["PySide6.QtCore", "shiboken6", "qasync"])
def test_a_module_that_imports_qt_by_name(module: str) -> None:
    importlib.import_module(module)
"""


PYTEST = [
    sys.executable,
    "-m",
    "pytest",
    "-c",
    str(ROOT / "pyproject.toml"),
    "-n",
    "0",
    "-q",
    "-p",
    "no:cacheprovider",
]


def run_pytest(test: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PYTEST, *options, str(test)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_qt_imported_through_importlib_fails_the_qt_free_run_only(tmp_path: Path) -> None:
    test = tmp_path / "test_planted.py"
    test.write_text(PLANTED)
    refused = run_pytest(test, "--qt-free=only")
    assert "3 failed" in refused.stdout, refused.stdout + refused.stderr
    for name in ("PySide6", "shiboken6", "qasync"):
        assert f"ImportError: {name} is refused in the Qt-free run" in refused.stdout
    allowed = run_pytest(test)  # the same tests, Qt allowed
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_every_qt_free_entry_exists() -> None:
    """A file renamed or moved leaves the list: its tests would then run with Qt, unnoticed."""
    assert [entry for entry in QT_FREE_TESTS if not (ROOT / entry).exists()] == []
