"""The command line's tests share one preloaded parent per pytest process (tests/cli/fork_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cli.cli_support import fork_server
from tests.cli.fork_server import ForkServer


@pytest.fixture(scope="session", autouse=True)
def cli_fork_server() -> Iterator[ForkServer]:
    with fork_server() as server:
        yield server
