"""The whole tree is held to `mypy --strict` (pyproject [tool.mypy]): an untyped function fails the check anywhere.

The test plants modules in a copy of the tree's layout (pyproject.toml and the packages' __init__ files only)
and runs mypy on them alone, with its cache in the test's own folder: a few seconds, not the minute a
whole-tree run takes. Beside each untyped module sits the same function annotated, which passes, so a
failure is the missing annotation's and not the set-up's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

UNTYPED = "def double(value):\n    return value * 2\n"
TYPED = "def double(value: int) -> int:\n    return value * 2\n"

# where the module is planted: the Qt widgets (which have their own PySide6 exception), the Qt-free core,
# and the tests themselves
PLACES = ["app/ui/playground", "app/core", "tests/gui"]


def test_an_untyped_function_fails_mypy_in_ui_core_and_tests(tmp_path: Path) -> None:
    """One mypy run over the planted modules: the untyped ones fail, their annotated twins pass."""
    tree = tmp_path / "tree"
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    planted = []
    for place in PLACES:
        folder = tree / place
        folder.mkdir(parents=True)
        for package in [Path(place), *Path(place).parents]:
            if package != Path("."):
                (tree / package / "__init__.py").touch()
        (folder / "test_untyped.py").write_text(UNTYPED)
        (folder / "test_typed.py").write_text(TYPED)
        planted += [f"{place}/test_untyped.py", f"{place}/test_typed.py"]
    command = [sys.executable, "-m", "mypy", "--config-file", str(tmp_path / "pyproject.toml")]
    command += ["--cache-dir", str(tmp_path / "mypy-cache"), *planted]
    result = subprocess.run(command, cwd=tree, capture_output=True, text=True, timeout=120)

    assert result.returncode == 1, result.stdout + result.stderr
    for place in PLACES:
        expected = (
            f"{place}/test_untyped.py:1: error: Function is missing a type annotation  [no-untyped-def]"
        )
        assert expected in result.stdout, result.stdout
    assert "test_typed.py" not in result.stdout, result.stdout
    assert f"Found {len(PLACES)} errors in {len(PLACES)} files" in result.stdout, result.stdout
