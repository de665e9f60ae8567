"""The frozen app leaves out the development tools: every package of the `test` extra (and the mypy that
pydantic's plugin module would drag in) is in the PyInstaller spec's excludes, and the app imports none."""

from __future__ import annotations

import ast
import re
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# One worker for the module's tests: they share one parse of app/ (~0.5 CPU-s).
pytestmark = pytest.mark.xdist_group("frozen_excludes")
# A distribution's import name, where it differs from the distribution's name.
IMPORT_NAMES = {
    "pytest-qt": "pytestqt",
    "import-linter": "importlinter",
    "pytest-xdist": "xdist",
    "openai-agents": "agents",
}


def spec_list(name: str) -> list[str]:
    tree = ast.parse((ROOT / "packaging" / "service-console.spec").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == name for t in node.targets):
            listed: list[str] = ast.literal_eval(node.value)
            return listed
    raise AssertionError(f"the spec has no {name} list")


def dev_tools() -> list[str]:
    return spec_list("DEV_TOOLS")


@cache
def import_nodes() -> tuple[tuple[Path, ast.Import | ast.ImportFrom], ...]:
    """Every import statement in app/, at any depth of the code, with its file: parsed once for the module's
    tests (walking every tree of app/ took ~0.5 CPU-s a time)."""
    return tuple(
        (path, node)
        for path in (ROOT / "app").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Import, ast.ImportFrom))
    )


def app_imports() -> set[tuple[str, str]]:
    """(top-level module, file name) of every absolute import in app/, at any depth of the code."""
    found = set()
    for path, node in import_nodes():
        if isinstance(node, ast.Import):
            found |= {(alias.name.split(".")[0], path.name) for alias in node.names}
        elif node.module and node.level == 0:
            found.add((node.module.split(".")[0], path.name))
    return found


def test_every_test_extra_package_is_excluded() -> None:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    names = {re.split(r"[<>=!\[ ;]", requirement, maxsplit=1)[0] for requirement in extra}
    wanted = {IMPORT_NAMES.get(name, name.replace("-", "_")) for name in names}
    assert wanted - set(dev_tools()) == set()
    assert {"pydantic.mypy", "mypyc", "_pytest"} <= set(dev_tools())  # what they drag in


def test_the_app_imports_no_development_tool() -> None:
    excluded = {name.split(".")[0] for name in dev_tools() if "." not in name}
    assert {(module, where) for module, where in app_imports() if module in excluded} == set()


def test_what_the_frozen_app_leaves_out_only_the_local_engine_imports() -> None:
    """The spec's NOT_LOADED: nothing the console runs imports them; the `local` extra's engine, which the
    frozen app does not carry, alone imports llama_cpp and numpy."""
    local_engine = {"llama_cpp", "numpy"}
    left_out = set(spec_list("NOT_LOADED"))
    assert local_engine <= left_out
    found = {(module, where) for module, where in app_imports() if module in left_out}
    assert {module for module, _where in found} <= local_engine
    assert {where for module, where in found} <= {p.name for p in (ROOT / "app/sandbox/engines").glob("*.py")}


def test_the_websocket_implementation_uvicorn_is_named_is_carried() -> None:
    """uvicorn loads its WebSocket protocol from a string the sandbox's server gives (ws="..."): a module
    named only so is invisible to the imports above, and a frozen app without it starts no sandbox."""
    server = (ROOT / "app" / "sandbox" / "server.py").read_text(encoding="utf-8")
    named = re.search(r'ws="([a-z-]+)"', server)
    assert named is not None
    module = {"websockets-sansio": "websockets", "websockets": "websockets", "wsproto": "wsproto"}[named[1]]
    assert module not in set(spec_list("NOT_LOADED")) | set(dev_tools())


def test_the_frozen_app_keeps_qtcharts_alone_of_pyside6_addons() -> None:
    """The Usage tab draws with QtCharts: every other Addons module is left out by name, and neither QtCharts
    nor the OpenGL libraries libQt6Charts links are (the build loads; a missing library only fails when the
    tab is first shown, which the packaging test's selftest does not do)."""
    addons = spec_list("ADDONS_BUT_CHARTS")
    assert "QtCharts" not in addons and {"QtGraphs", "QtWebEngineCore", "Qt3DCore"} <= set(addons)
    assert "QtCharts" not in spec_list("UNUSED_QT")
    qt_imports = {
        node.module
        for _path, node in import_nodes()
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("PySide6.")
    }
    assert not {f"PySide6.{name}" for name in addons} & qt_imports
    spec = (ROOT / "packaging" / "service-console.spec").read_text()
    dropped = ast.literal_eval(spec.split("DROP = ", 1)[1].split("\n)\n", 1)[0] + "\n)")
    for library in ("libQt6Charts.so.6", "libQt6OpenGL.so.6", "libQt6OpenGLWidgets.so.6"):
        assert not any(pattern in f"/{library} PySide6/Qt/lib/{library}" for pattern in dropped), library
