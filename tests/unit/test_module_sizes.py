"""Every module of the app stays small enough to read whole: one job each (past about 350 lines a module
holds a second job, to be split along its seam, not cut in halves)."""

from __future__ import annotations

from pathlib import Path

import app

MAX_LINES = 350


def oversized(root: Path) -> dict[str, int]:
    """The modules under `root` longer than MAX_LINES, with their line counts."""
    counts = {
        str(path.relative_to(root)): len(path.read_text("utf-8").splitlines()) for path in root.rglob("*.py")
    }
    return {name: lines for name, lines in counts.items() if lines > MAX_LINES}


def test_no_module_is_over_the_limit() -> None:
    assert oversized(Path(app.__file__).parent) == {}


def test_the_check_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_LINES + 1), "utf-8")
    (tmp_path / "short.py").write_text("x = 1\n" * MAX_LINES, "utf-8")
    assert oversized(tmp_path) == {"long.py": MAX_LINES + 1}
