"""Real proxies (mitmproxy, squid), each test starting its own; the tests run only when `-m proxies` selects
them (`bash packaging/dev.sh test-proxies` installs the proxies first)."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from tests.proxies.servers import Pki, make_pki, mitmdump_command, squid_command

RUN_WITH = "bash packaging/dev.sh test-proxies"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "proxies" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason=f"real proxies: run with `{RUN_WITH}`")
    for item in items:
        if item.get_closest_marker("proxies"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def installed() -> None:
    if mitmdump_command() is None or squid_command() is None:
        pytest.skip(f"mitmproxy or squid is not installed: {RUN_WITH}")


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def _sandbox(folder: Path, pki: Pki, client_ca: bool, delay_ms: float = 0.0) -> SandboxServer:
    config = SandboxConfig(
        data_dir=folder, trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")], stream_delay_ms=delay_ms
    )
    return SandboxServer(
        config, tls=TlsOptions(pki.server_cert, pki.server_key, pki.ca if client_ca else None)
    )


@pytest.fixture(scope="session")
def https_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with _sandbox(tmp_path_factory.mktemp("https"), pki, client_ca=False) as server:
        yield server


@pytest.fixture(scope="session")
def slow_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    """Answers that stream for a few seconds (40 ms a delta)."""
    with _sandbox(tmp_path_factory.mktemp("slow"), pki, client_ca=False, delay_ms=40) as server:
        yield server


@pytest.fixture(scope="session")
def mtls_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    with _sandbox(tmp_path_factory.mktemp("mtls"), pki, client_ca=True) as server:
        yield server
