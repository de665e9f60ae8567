"""The Qt-free packages' tests run with Qt absent: a pytest plugin (pyproject's addopts load it in every run).

`--qt-free=only` runs the tests listed in QT_FREE_TESTS, which exercise app.core, app.api, app.sandbox,
app.netrules, app.common and app.schema, with PySide6, shiboken6 and qasync refused at import: a Qt import
made in one of those packages (an `importlib.import_module("PySide6.QtCore")` the import-linter cannot see)
fails that run. `--qt-free=others` runs every other test; `packaging/dev.sh test` runs the two sessions at the
same time, and no test runs twice. Without the option, every test runs, Qt allowed.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKED = ("PySide6", "shiboken6", "qasync")

# What only the Qt-free packages serve. A test file that is not here runs in the session with Qt.
QT_FREE_TESTS = (
    "tests/api",
    "tests/sandbox",
    "tests/cli/test_allowlist_cli.py",
    "tests/unit/test_allowlist_checks.py",
    "tests/unit/test_allowlist_state_index.py",
    "tests/unit/test_command_line.py",
    "tests/unit/test_conversation_store.py",
    "tests/unit/test_embedded_port.py",
    "tests/unit/test_entry_search.py",
    "tests/unit/test_fileio.py",
    "tests/unit/test_fork_server.py",
    "tests/unit/test_gateway_match_properties.py",
    "tests/unit/test_logs.py",
    "tests/unit/test_netrules.py",
    "tests/unit/test_netrules_index.py",
    "tests/unit/test_policy.py",
    "tests/unit/test_policy_properties.py",
    "tests/unit/test_private_files.py",
    "tests/unit/test_proxy_settings.py",
    "tests/unit/test_refusal.py",
    "tests/unit/test_rotation_plan.py",
    "tests/unit/test_segments.py",
    "tests/unit/test_snippets.py",
    "tests/unit/test_sqlite_rescue.py",
    "tests/unit/test_teams_core.py",
    "tests/unit/test_transfer.py",
    "tests/unit/test_turns.py",
)


class QtRefused(importlib.abc.MetaPathFinder):
    """Refuses PySide6, shiboken6 and qasync (and their submodules) at import, whoever imports them."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".", 1)[0] in BLOCKED:
            raise ImportError(f"{fullname} is refused in the Qt-free run (--qt-free=only)", name=fullname)
        return None


def qt_blocked() -> bool:
    """Whether this process refuses Qt (tests/conftest.py then leaves PySide6 unloaded)."""
    return any(isinstance(finder, QtRefused) for finder in sys.meta_path)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--qt-free",
        choices=("only", "others"),
        default=None,
        help="only: the Qt-free packages' tests, with PySide6, shiboken6 and qasync refused at import; "
        "others: every other test",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Before tests/conftest.py is imported: refuse Qt, and leave pytest-qt out (it loads Qt as it starts)."""
    if early_config.known_args_namespace.qt_free != "only":
        return
    loaded = [name for name in sys.modules if name.split(".", 1)[0] in BLOCKED]
    if loaded:
        raise pytest.UsageError(f"--qt-free=only: Qt was imported before the run began ({', '.join(loaded)})")
    sys.meta_path.insert(0, QtRefused())
    early_config.pluginmanager.set_blocked("pytest-qt")  # its entry point's name


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Each session collects its own tests only (a test outside the project is left to pytest)."""
    mode = config.getoption("qt_free")
    if mode is None or not collection_path.resolve().is_relative_to(ROOT):
        return None
    relative = collection_path.resolve().relative_to(ROOT).as_posix()
    listed = any(relative == entry or relative.startswith(entry + "/") for entry in QT_FREE_TESTS)
    if mode == "others":
        return True if listed else None
    leads_to_one = any(entry.startswith(relative + "/") for entry in QT_FREE_TESTS) or relative in (
        ".",
        "tests",
    )
    return None if listed or leads_to_one else True
