"""xdist's controller runs no test: what only tests use is left out of it (a pytest plugin; pyproject's addopts
load it in every run).

`-n 2` (packaging/dev.sh test) makes each pytest a controller that hands the tests to two workers and prints
what they report; the workers import tests/conftest.py and every test module, and run the tests. The
controller imports tests/conftest.py too, and pytest-qt is one of its plugins: what tests/conftest.py imports
for the tests (the sandbox, httpx) and the Qt that pytest-qt loads as it is configured cost ~0.4 CPU-s of each
controller's ~1 and served nothing there. tests/conftest.py asks `in_controller()`; pytest-qt is left out of
the controller, as tests/qt_free.py leaves it out of the Qt-free run. Hypothesis stays: its plugin reports
the failing examples' patch from the controller.
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version

import pytest

_controller = False  # decided before tests/conftest.py is imported (pytest_load_initial_conftests)
_qt_left_out = False  # pytest-qt was loaded, and this plugin left it out


def in_controller() -> bool:
    """Whether this process is xdist's controller, which runs no test."""
    return _controller


def distributes(options: object) -> bool:
    """Whether pytest's early options (`known_args_namespace`) make this process a controller: workers asked
    for (`-n 2`, `-n auto` without --pdb, which makes it 0), tests to be run (not --collect-only), and not a
    worker itself (xdist names it in the environment before the worker's pytest starts)."""
    workers = getattr(options, "numprocesses", None)  # absent without xdist (-p no:xdist)
    if not workers or getattr(options, "collectonly", False) or os.environ.get("PYTEST_XDIST_WORKER"):
        return False
    return not (workers in ("auto", "logical") and getattr(options, "usepdb", False))


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before tests/conftest.py is imported: is this the controller; if so, leave pytest-qt out (its options
    stay known)."""
    global _controller, _qt_left_out
    _controller = distributes(early_config.known_args_namespace)
    manager = early_config.pluginmanager
    if _controller and not manager.is_blocked("pytest-qt"):
        _qt_left_out = manager.has_plugin("pytest-qt")
        manager.set_blocked("pytest-qt")  # its entry point's name


def pytest_report_header() -> str | None:
    """pytest-qt's header line says which Qt the workers run; without loading Qt, its package's version."""
    if not _qt_left_out:
        return None
    try:
        return f"PySide6 {version('PySide6_Essentials')} (the workers')"
    except PackageNotFoundError:  # installed otherwise than from PyPI's wheels
        return None
