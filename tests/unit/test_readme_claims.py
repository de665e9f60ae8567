"""The README's Contributing claims, checked against the code and configuration they describe."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_named_error_class_exists_where_the_readme_says() -> None:
    named = re.search(r"Bad input raises `(\w+)` \(`(app/[\w/]+\.py)`\)", README)
    assert named is not None
    assert f"class {named.group(1)}(" in (ROOT / named.group(2)).read_text()


def test_the_mypy_scope_is_the_whole_tree_strict() -> None:
    line = next(line for line in README.splitlines() if line.startswith("mypy "))
    assert "--strict on the whole tree, tests included" in line
    mypy = PYPROJECT["tool"]["mypy"]
    assert mypy["strict"] is True and set(mypy["files"]) >= {"app", "tests"}
    assert not any(o.get("disallow_untyped_defs") is False for o in mypy.get("overrides", []))


def test_the_warning_exceptions_are_the_ones_the_readme_names() -> None:
    filters = PYPROJECT["tool"]["pytest"]["ini_options"]["filterwarnings"]
    assert filters[0] == "error"
    ignored = [f for f in filters[1:] if f.startswith("ignore")]
    assert len(ignored) == 1 and "try_connect" in ignored[0] and "`try_connect`" in README
    conftest = (ROOT / "tests" / "gui" / "conftest.py").read_text()
    assert 'simplefilter("ignore", ResourceWarning)' in conftest
    assert "ignoring their ResourceWarning at its teardown only" in " ".join(README.split())


def test_the_llama_build_time_is_one_figure_everywhere() -> None:
    texts = [README] + [
        (ROOT / p).read_text() for p in ("pyproject.toml", "packaging/dev.sh", "packaging/peers.sh")
    ]
    figures = {m for text in texts for m in re.findall(r"(~?[\d-]+ min) on 2 cores", text)}
    figures |= {m for text in texts for m in re.findall(r"from source in (~?[\d-]+ min)", text)}
    assert figures == {"5-10 min"}
