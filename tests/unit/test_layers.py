"""Layers: netrules, api and sandbox never import Qt; ui never imports httpx or the sandbox."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"


def test_qt_free_packages_import_with_qt_blocked() -> None:
    script = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, *args):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6', 'qasync'):\n"
        "            raise ImportError(f'Qt imported: {name}')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import app.netrules, app.api, app.sandbox, app.sandbox.cli, app.sandbox.app, app.secrets, app.logs\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=APP.parent)


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_ui_never_imports_httpx_or_the_sandbox() -> None:
    for path in (APP / "ui").rglob("*.py"):
        for name in imported_modules(path):
            assert not name.startswith(("httpx", "app.sandbox")), f"{path.name} imports {name}"


def test_only_api_imports_httpx_in_the_console() -> None:
    for path in APP.rglob("*.py"):
        if path.is_relative_to(APP / "api") or path.is_relative_to(APP / "sandbox"):
            continue
        assert not any(name.startswith("httpx") for name in imported_modules(path)), path
