"""xdist's controller leaves out what only tests use (tests/xdist_controller.py); every other pytest keeps it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.fork_server import ROOT
from tests.xdist_controller import distributes

# The controller of `-n 1`, stopped as its session starts (before its worker would be), says what it imported.
PROBE = """
import json, sys
import pytest

class Probe:
    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self):
        print("LOADED", json.dumps([name for name in ("PySide6.QtCore", "app.sandbox", "httpx") if name in sys.modules]))
        pytest.exit("probed", returncode=0)

sys.exit(pytest.main(["-p", "no:cacheprovider", "-p", "no:schemathesis", *sys.argv[1:], "tests/unit/test_xdist_controller.py"], plugins=[Probe()]))
"""


def loaded(*arguments: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_XDIST_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("LOADED"))
    return list(json.loads(line.removeprefix("LOADED")))


def test_the_controller_loads_neither_qt_nor_what_the_tests_use() -> None:
    assert loaded("-n", "1") == []


@pytest.mark.parametrize(
    ("options", "worker", "controller"),
    [
        ({"numprocesses": 2}, None, True),
        ({"numprocesses": "auto"}, None, True),
        ({"numprocesses": 2}, "gw0", False),  # the worker, or a pytest a test starts under one
        ({"numprocesses": 0}, None, False),
        ({"numprocesses": None}, None, False),
        ({}, None, False),  # -p no:xdist
        ({"numprocesses": 2, "collectonly": True}, None, False),  # xdist collects in the controller then
        ({"numprocesses": "auto", "usepdb": True}, None, False),  # -n auto with --pdb runs here
    ],
)
def test_a_controller_is_a_pytest_that_hands_its_tests_to_workers(
    options: dict[str, object], worker: str | None, controller: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    if worker is not None:
        monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    assert distributes(SimpleNamespace(**options)) is controller
