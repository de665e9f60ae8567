"""The import contracts (pyproject [tool.importlinter]) hold on the real tree and catch a violation of each kind:
an import across the layers, Qt in a Qt-free package, a circle among siblings, one tab importing another.

import-linter reads the source statically, so it sees imports inside functions, relative imports and the
modules behind app.api's lazy __getattr__. Each case plants one forbidden import (or, for a circle, two
modules that import each other) in modules of its own, all in one copy of the tree that one run of
lint-imports reads; each case's test finds its own violation named in that run's report.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

# (package the planted module goes into, its source, what the report must name)
PLANTED = {
    "Qt in netrules": ("netrules", "from PySide6 import QtCore\n", "app.netrules.planted -> PySide6"),
    "Qt in api": ("api", "import PySide6.QtCore\n", "app.api.planted -> PySide6"),
    "qasync in sandbox": ("sandbox", "def f():\n    import qasync\n", "app.sandbox.planted -> qasync"),
    "api in sandbox": ("sandbox", "from ..api import errors\n", "app.sandbox.planted -> app.api.errors"),
    "services in netrules": (
        "netrules",
        "def f():\n    from app.services import session\n",
        "app.netrules.planted -> app.services.session",
    ),
    "Qt in core": ("core", "from PySide6.QtCore import QObject\n", "app.core.planted -> PySide6"),
    "Qt deep in core": ("core/playground", "import shiboken6\n", "app.core.playground.planted -> shiboken6"),
    "Qt in common": ("common", "import qasync\n", "app.common.planted -> qasync"),
    "Qt in schema": ("schema", "from PySide6 import QtCore\n", "app.schema.planted -> PySide6"),
    "sandbox in schema": (
        "schema",
        "from app.sandbox import contract\n",
        "app.schema.planted -> app.sandbox.contract",
    ),
    "services in core": (
        "core",
        "from app.services.session import messages\n",
        "app.core.planted -> app.services",
    ),
    "ui in services": ("services", "from app.ui import main_window\n", "app.services.planted -> app.ui"),
    "httpx in models": ("models", "import httpx\n", "app.models.planted -> httpx"),
    "sandbox in ui": ("ui", "from app.sandbox import SandboxServer\n", "app.ui.planted -> app.sandbox"),
    "api in ui": ("ui", "from app.api.errors import ApiError\n", "app.ui.planted -> app.api.errors"),
    "Playground widget imports a Security widget": (
        "ui/playground",
        "from app.ui.security import tab\n",
        "app.ui.playground is not allowed to import app.ui.security",
    ),
    "Security service imports the Playground's": (
        "services/security",
        "def f():\n    from app.services.playground import service\n",
        "app.services.security is not allowed to import app.services.playground",
    ),
    "core's Playground imports core's Security": (
        "core/playground",
        "from app.core.security import checks\n",
        "app.core.playground is not allowed to import app.core.security",
    ),
    "sandbox engines import the server above them": (
        "sandbox/engines",
        "def f():\n    from app.sandbox import cli\n",
        "No cycles are allowed in app.sandbox",
    ),
}

# A circle planted as two new sibling modules that import each other: (package, what the report must name).
CIRCLES = {
    "inside core/playground": ("core/playground", "No cycles are allowed in app.core.playground"),
    "inside services/session": ("services/session", "No cycles are allowed in app.services.session"),
    "inside netrules": ("netrules", "No cycles are allowed in app.netrules"),
    "inside api": ("api", "No cycles are allowed in app.api"),
}


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(tree / "pyproject.toml")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("tree")
    shutil.copytree(ROOT / "app", tree / "app", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree)
    return tree


def test_the_real_tree_keeps_every_contract(pristine: Path) -> None:
    result = lint_imports(pristine)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture(scope="module")
def planted_report(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """One run of lint-imports over a copy of the tree holding every planted case, each in modules of its own
    (a run builds the graph of the whole app: one for all the cases, not one per case); its report on one line.
    """
    tree = tmp_path_factory.mktemp("planted") / "tree"
    shutil.copytree(pristine, tree)
    for number, (package, source, _reported) in enumerate(PLANTED.values()):
        (tree / "app" / package / f"planted_{number}.py").write_text(source, encoding="utf-8")
    for number, (package, _reported) in enumerate(CIRCLES.values()):
        one, two = f"circle_{number}_one", f"circle_{number}_two"
        (tree / "app" / package / f"{one}.py").write_text(f"from . import {two}\n", encoding="utf-8")
        (tree / "app" / package / f"{two}.py").write_text(
            f"def f():\n    from . import {one}\n", encoding="utf-8"
        )
    result = lint_imports(tree)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout
    # import-linter wraps its report at 80 columns: compared without the line breaks.
    return " ".join(result.stdout.split())


@pytest.mark.parametrize("case", PLANTED)
def test_a_planted_violation_breaks_a_contract(planted_report: str, case: str) -> None:
    number = list(PLANTED).index(case)
    reported = PLANTED[case][2].replace(".planted ", f".planted_{number} ")
    assert reported in planted_report, planted_report


@pytest.mark.parametrize("case", CIRCLES)
def test_a_planted_circle_breaks_the_acyclic_contract(planted_report: str, case: str) -> None:
    number = list(CIRCLES).index(case)
    _package, reported = CIRCLES[case]
    # This case's own circle, named in its package's paragraph (not only some other one in the package).
    assert (
        f"{reported}. It could be made acyclic by removing 1 dependency: - .circle_{number}_two -> "
        f".circle_{number}_one" in planted_report
    ), planted_report
