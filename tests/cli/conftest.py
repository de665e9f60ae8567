"""The command line's tests call it through one preloaded parent per pytest process (tests/fork_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cli import cli_support
from tests.fork_server import ForkServer


@pytest.fixture(scope="session", autouse=True)
def cli_fork_server(python_m: ForkServer) -> Iterator[None]:
    cli_support.SERVER = python_m
    yield
    cli_support.SERVER = None
