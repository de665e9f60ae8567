"""The layer contracts (pyproject [tool.importlinter]) hold on the real tree and catch a violation in each layer.

import-linter reads the source statically, so it sees imports inside functions, relative imports and the
modules behind app.api's lazy __getattr__. Each case plants one forbidden import in a copy of the tree.
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


@pytest.mark.parametrize("case", PLANTED)
def test_a_planted_violation_breaks_a_contract(pristine: Path, tmp_path: Path, case: str) -> None:
    package, source, reported = PLANTED[case]
    tree = tmp_path / "tree"
    shutil.copytree(pristine, tree)
    (tree / "app" / package / "planted.py").write_text(source, encoding="utf-8")
    result = lint_imports(tree)
    assert result.returncode != 0, result.stdout
    assert "BROKEN" in result.stdout
    assert reported in result.stdout, result.stdout
