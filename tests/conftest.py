"""Shared fixtures: a real sandbox server on a random loopback port, with credentials.

One server serves the whole session, one per xdist worker (starting and stopping one per test cost ~0.2 s
each); every test gets
a fresh organization, project and keys on it, so tests share no allowlist, usage or rate-limit state.
Tests that need a server configured otherwise, or alone in its store (the dashboard commands act on "the
only organization"), ask `sandbox_factory` for their own.
"""

from __future__ import annotations

import gc
import importlib.util
import ipaddress
import os
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Qt's raster painter hands a fill of more than ~100 lines (a tab widget's frame, a toolbar's) to a pool of
# threads and waits for them. The tests paint windows of a few hundred points, in full at almost every change:
# handing each fill over and back (waking threads, context switches) cost more than it saved, ~6 of the GUI
# tests' ~65 CPU-s. Painted in the calling thread instead, pixel for pixel the same.
os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")
# Public IP echo services are Internet hosts: off in tests (tests that need them run their own on loopback).
os.environ["SERVICE_CONSOLE_ECHO"] = "off"

from app.pyside_imports import load_pyside
from tests.fork_server import ForkServer
from tests.qt_free import qt_blocked
from tests.xdist_controller import in_controller

# What the tests use, imported where they are used: not in xdist's controller, which runs none.
if TYPE_CHECKING:
    import httpx

    from app.sandbox import SandboxServer
    from app.sandbox.store.organizations import Credentials

# As the console does at launch: PySide6's `__feature__` hook out of Python's import (app/pyside_imports.py),
# which pytest-qt loaded first. Every import statement a test runs (hypothesis makes ~470,000 in the fuzzing
# module) went through it. Not in the Qt-free run (tests/qt_free.py), where Qt is refused, nor in the
# controller.
if not qt_blocked() and not in_controller():
    load_pyside()

# Each marker's tests start real programs that may take a while to answer, and pytest-timeout's limit covers a
# test's fixtures too: longer than the longest wait of the marker's fixtures, under load, plus the test itself.
MARKER_TIMEOUTS = {
    "peers": 480,  # the llama.cpp server waits up to 120 s to answer, then the LiteLLM proxy up to 180 s
    "proxies": 180,  # a proxy waits up to 30 s to listen, mitmproxy 10 s more for its CA; a test starts two
    "local": 300,  # the weights load (253 MB) and real generation on a loaded machine
    "packaging": 1900,  # the installers' build may take 1200 s and their install and selftest 600 s
}


# The modules whose tests take longest (seconds each on an idle machine, under load several times that):
# scheduled early (after the WAITING ones below), so that xdist's two workers end together on short tests
# instead of one waiting while the other finishes a long one last. Not the console's selftests
# (test_private_files, test_sqlite_rescue): they share the session's one Secret Service, where each stores
# the embedded profile's key under the same name, and run side by side one can be answered 401 with the
# other's key.
SLOW_FIRST = (
    "tests/sandbox/test_schemathesis.py",
    "tests/sandbox/test_get_code.py",
    "tests/cli/test_allowlist_cli.py",
    "tests/unit/test_benches.py",
    "tests/sandbox/test_agents_sdk.py",
    "tests/sandbox/test_gateway_socket.py",
    "tests/unit/test_qt_free_run.py",
    "tests/gui/test_image_size.py",
    "tests/sandbox/test_cli.py",
)


# Modules whose tests mostly wait (deadlines, retries, slow peers, a real window manager, scripts run): run
# first, one after the other on one worker of their session (one xdist group, "waiting"; a test that names a
# group of its own keeps it), while the session's other worker computes. Spread among the other modules
# instead, both workers of a session still met waiting ones at once (a place in the order says little about
# when a test runs: the tests before it last from milliseconds to seconds), and a core idled.
WAITING = (
    "tests/api/test_edges.py",
    "tests/api/test_proxies.py",
    "tests/api/test_proxy_messages.py",
    "tests/api/test_stream_edges.py",
    "tests/sandbox/test_project_limits.py",
    "tests/sandbox/test_slow_clients.py",
    "tests/sandbox/test_state_routes.py",
    "tests/unit/test_fork_server.py",
    "tests/gui/test_playground_waiting.py",
    "tests/gui/test_focus_real_wm.py",
    "tests/unit/test_dev_script.py",
)


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups added here
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The WAITING modules first, in one xdist group, then the slowest modules (SLOW_FIRST), then the rest;
    each module's tests stay in their order (xdist keeps it: --no-loadscope-reorder in pyproject). A test of
    a marker in MARKER_TIMEOUTS gets its limit, unless it says its own (@pytest.mark.timeout)."""
    rank = {module: position for position, module in enumerate(SLOW_FIRST)}
    lane = {module: position for position, module in enumerate(WAITING)}
    items.sort(key=lambda item: (lane.get(_module(item), len(lane)), rank.get(_module(item), len(rank))))
    for item in items:
        if _module(item) in lane and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group("waiting"))
    for item in items:
        if item.get_closest_marker("timeout") is not None:
            continue
        limits = [seconds for marker, seconds in MARKER_TIMEOUTS.items() if item.get_closest_marker(marker)]
        if limits:
            item.add_marker(pytest.mark.timeout(max(limits)))


# httpx builds a new default SSL context for every client it makes (and one per proxy it mounts), parsing
# certifi's ~150 CA certificates each time: ~20-40 ms of CPU, and the suite makes well over a thousand
# clients (each test's `sandbox.admin()`, the GUI session's client, the official client, which is built on
# httpx2, a fork of httpx with the same transports). The default context is the same every time, so the
# tests share one per (library, SSL_CERT_FILE, SSL_CERT_DIR); a client given its own context (`verify=...`,
# as the TLS and proxy tests do) or `verify=False` is built as before. Only the tests' process: the app, the
# sandbox and every subprocess make their own.
_default_contexts: dict[tuple[str, bool, str, str], ssl.SSLContext] = {}


def _share_default_ssl_contexts(transports: Any) -> None:
    """Replace the name the library's transports call (imported from its _config) with one that hands out
    one default context per library, environment and trust_env."""
    create = transports.create_ssl_context
    library = transports.__name__.split(".")[0]

    def shared(
        verify: ssl.SSLContext | str | bool = True, cert: Any = None, trust_env: bool = True
    ) -> ssl.SSLContext:
        if verify is not True or cert:
            return cast(ssl.SSLContext, create(verify=verify, cert=cert, trust_env=trust_env))
        key = (library, trust_env, os.environ.get("SSL_CERT_FILE", ""), os.environ.get("SSL_CERT_DIR", ""))
        context = _default_contexts.get(key)
        if context is None:
            context = _default_contexts[key] = create(verify=True, trust_env=trust_env)
        return context

    transports.create_ssl_context = shared


if not in_controller():
    import httpx._transports.default as _httpx_transports

    _share_default_ssl_contexts(_httpx_transports)
    if importlib.util.find_spec("httpx2") is not None:  # the official client's; installed with the test extra
        import httpx2._transports.default as _httpx2_transports

        _share_default_ssl_contexts(_httpx2_transports)

# No per-example deadline: on a shared machine running the suite on both cores, one example paused by the
# scheduler for 400 ms failed a property test as "flaky" (hypothesis' default is 200 ms). A test that really
# hangs is stopped by pytest-timeout ([tool.pytest.ini_options] timeout) instead.
settings.register_profile("console", deadline=None)
settings.load_profile("console")


@dataclass
class Sandbox:
    server: SandboxServer
    credentials: Credentials | None = field(default=None)  # None: the ones the server made on first start

    @property
    def url(self) -> str:
        return self.server.base_url

    @property
    def creds(self) -> Credentials:
        credentials = self.credentials or self.server.credentials
        assert credentials is not None
        return credentials

    def client(self, key: str | None = None, ip: str | None = None, **kwargs: Any) -> httpx.Client:
        """A client that, through the trusted loopback proxy, appears to come from `ip`."""
        import httpx

        headers: dict[str, str] = {}
        if key:
            headers["authorization"] = f"Bearer {key}"
        if ip:
            headers["x-forwarded-for"] = ip
        return httpx.Client(base_url=self.url, headers=headers, timeout=30, **kwargs)

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


def start_sandbox(data_dir: Path, **overrides: Any) -> SandboxServer:
    from app.sandbox import SandboxConfig, SandboxServer

    config = SandboxConfig(data_dir=data_dir, **overrides)
    return SandboxServer(config).start()


LOOPBACK_PROXY = [ipaddress.ip_network("127.0.0.1/32")]


class SandboxFactory(Protocol):
    """What the `sandbox_factory` fixture gives: a server of the test's own, from SandboxConfig overrides."""

    def __call__(self, **overrides: Any) -> Sandbox: ...


@pytest.fixture
def sandbox_factory(tmp_path: Path) -> Iterator[SandboxFactory]:
    """Servers of the test's own, configured with SandboxConfig overrides; stopped after the test."""
    servers: list[SandboxServer] = []

    def make(**overrides: Any) -> Sandbox:
        overrides.setdefault("trusted_proxies", LOOPBACK_PROXY)
        server = start_sandbox(tmp_path / f"sandbox{len(servers)}", **overrides)
        servers.append(server)
        return Sandbox(server)

    yield make
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def shared_sandbox_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    server = start_sandbox(tmp_path_factory.mktemp("shared-sandbox"), trusted_proxies=LOOPBACK_PROXY)
    yield server
    server.stop()


@pytest.fixture
def sandbox(shared_sandbox_server: SandboxServer) -> Sandbox:
    """A fresh organization (project, admin and project keys) on the session's sandbox, which trusts
    loopback as a proxy, so tests play any source IP with X-Forwarded-For."""
    return Sandbox(shared_sandbox_server, shared_sandbox_server.store.organizations.bootstrap())


@pytest.fixture(scope="session")
def python_m(worker_id: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    """`python -m app ...` and `python -m app.sandbox ...` as real child processes, forked from one parent
    that imported them once (tests/fork_server.py says why), started when a test first asks for it: one for
    the xdist workers of a run (in the folder above theirs), ending with their controller; one for both
    sessions of packaging/dev.sh test, which names its folder and its owner (the script)."""
    folder, owner = os.environ.get("TESTS_FORK_SERVER_FOLDER"), os.environ.get("TESTS_FORK_SERVER_OWNER")
    if folder and owner:
        yield ForkServer.shared(Path(folder), owner=int(owner))
    elif worker_id == "master":  # no xdist
        with ForkServer() as server:
            yield server
    else:
        yield ForkServer.shared(tmp_path_factory.getbasetemp().parent, owner=os.getppid())


def pytest_collection_finish(session: pytest.Session) -> None:
    """Every object alive once the tests are collected (the modules of Qt, hypothesis, schemathesis, the app
    and the tests) lives until the end of the run: freeze it, so each garbage collection (automatic ones and
    the GUI fixture's explicit gc.collect() after every test) scans only what the tests made since. A full
    collection over that heap cost ~0.3 s, once per GUI test and at every automatic oldest-generation pass."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """pytest's clean-up, right after this, runs five full garbage collections to find the unraisable
    exceptions (a finalizer's error) of whatever is still garbage: over the heap the tests leave (the
    hypothesis and schemathesis caches, the sandboxes' objects) ~1 s per process. Two collections here find
    that garbage, and what its finalizers leave; what is alive then is frozen, and pytest's five scan only
    what comes after."""
    gc.collect()
    gc.collect()
    gc.freeze()
