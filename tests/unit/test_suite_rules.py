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
from typing import cast

import pytest

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


class _Item:
    """What the suite's ordering hook reads of a collected test: its node id and markers."""

    def __init__(self, nodeid: str, group: str | None = None) -> None:
        self.nodeid = nodeid
        self.groups = [] if group is None else [group]

    def get_closest_marker(self, name: str) -> object | None:
        return self.groups[0] if name == "xdist_group" and self.groups else None

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        if marker.name == "xdist_group":
            self.groups.append(str(marker.args[0]))


def test_waiting_modules_run_first_on_one_worker_then_the_slow_ones_then_the_rest() -> None:
    """The modules that mostly wait (tests/conftest.py WAITING) come first, in their order and all in one
    xdist group (a test that names one already keeps it), then the slow-first ones, then the others in
    their order with no group; each module's tests stay together and in their order."""
    from tests import conftest

    waiting = conftest.WAITING[:3]
    others = [f"tests/unit/test_other_{n}.py" for n in range(12)]
    items = [
        _Item(f"{module}::test_{n}")
        for module in [*others[:6], *waiting[::-1], *others[6:]]
        for n in range(2)
    ]
    items.insert(4, _Item(f"{waiting[0]}::test_named", group="keychain"))
    items.insert(7, _Item(f"{conftest.SLOW_FIRST[0]}::test_slow"))
    conftest.pytest_collection_modifyitems(cast(list[pytest.Item], items))
    modules = [item.nodeid.split("::")[0] for item in items]
    runs = [module for n, module in enumerate(modules) if n == 0 or module != modules[n - 1]]
    assert runs == [*waiting, conftest.SLOW_FIRST[0], *others], runs
    assert [item.nodeid.split("::")[1] for item in items[:3]] == ["test_named", "test_0", "test_1"]
    for item in items:
        module = item.nodeid.split("::")[0]
        expected = (
            ["keychain"] if item.nodeid.endswith("test_named") else ["waiting"] if module in waiting else []
        )
        assert item.groups == expected, item.nodeid
