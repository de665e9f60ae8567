"""Shared fixtures: a real sandbox server on a random loopback port, with credentials."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Public IP echo services are Internet hosts: off in tests (tests that need them run their own on loopback).
os.environ["SERVICE_CONSOLE_ECHO"] = "off"

from app.sandbox import SandboxConfig, SandboxServer


@dataclass
class Sandbox:
    server: SandboxServer

    @property
    def url(self) -> str:
        return self.server.base_url

    @property
    def creds(self):
        assert self.server.credentials is not None
        return self.server.credentials

    def client(self, key: str | None = None, ip: str | None = None, **kwargs: object) -> httpx.Client:
        """A client that, through the trusted loopback proxy, appears to come from `ip`."""
        headers = {}
        if key:
            headers["authorization"] = f"Bearer {key}"
        if ip:
            headers["x-forwarded-for"] = ip
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **kwargs)  # type: ignore[arg-type]

    def admin(self, ip: str | None = None) -> httpx.Client:
        return self.client(self.creds.admin_key, ip)

    def api(self, ip: str | None = None) -> httpx.Client:
        return self.client(self.creds.api_key, ip)

    @property
    def org_list(self) -> str:
        return f"/organizations/{self.creds.org_id}/ip_allowlist"

    @property
    def project_list(self) -> str:
        return f"/organizations/{self.creds.org_id}/projects/{self.creds.project_id}/ip_allowlist"


def start_sandbox(data_dir: Path, **overrides: object) -> SandboxServer:
    config = SandboxConfig(data_dir=data_dir, **overrides)  # type: ignore[arg-type]
    return SandboxServer(config).start()


@pytest.fixture
def sandbox_factory(tmp_path: Path) -> Iterator:
    servers: list[SandboxServer] = []

    def make(**overrides: object) -> Sandbox:
        overrides.setdefault("trusted_proxies", [ipaddress.ip_network("127.0.0.1/32")])
        server = start_sandbox(tmp_path / f"sandbox{len(servers)}", **overrides)
        servers.append(server)
        return Sandbox(server)

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def sandbox(sandbox_factory) -> Sandbox:
    """A fresh sandbox that trusts loopback as a proxy, so tests play any source IP with X-Forwarded-For."""
    return sandbox_factory()
