"""The packaging tests build the installers (minutes, and the folder's size depends on the venv it is built
from): they run only when selected, `pytest -m packaging`, never in the default run."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "packaging" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="builds the installers: run with `pytest -m packaging`")
    for item in items:
        if item.get_closest_marker("packaging"):
            item.add_marker(skip)
