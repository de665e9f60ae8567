"""The "Get code" tests' Python snippets run by a parent that imported the official `openai` client once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fork_server import OPENAI_PRELOAD, OPENAI_READ_ON_IMPORT, ForkServer


@pytest.fixture(scope="session")
def python_openai() -> Iterator[ForkServer]:
    """`python FILE` as a real child process forked from a parent that imported `openai` (~0.6 CPU-s of each
    new interpreter's ~0.9 for a snippet); the snippet's own `import openai` then finds it imported. The
    tests that use it share one xdist group, so that one pytest process starts it."""
    with ForkServer(OPENAI_PRELOAD, modules=(), scripts=True, read_on_import=OPENAI_READ_ON_IMPORT) as server:
        yield server
