"""Run the sandbox: in its own thread and loop (for the console and the tests) or in the foreground (CLI)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from app.common.fileio import write_atomically
from app.sandbox.app import create_app
from app.sandbox.config import SandboxConfig
from app.sandbox.gateway.slow_clients import KEEP_ALIVE, guarded_httptools_protocol, hold_connections
from app.sandbox.state import SandboxState
from app.sandbox.store.aggregates import Store
from app.sandbox.store.organizations import Credentials
from app.sandbox.store.retention import keep_pruning
from app.sandbox.store.upkeep import Compiler, Keeper


@dataclass(frozen=True)
class TlsOptions:
    cert: Path
    key: Path
    client_ca: Path | None = None


def first_start_credentials(
    store: Store, url: str, credentials_out: Path | None = None
) -> Credentials | None:
    """Make the organization, project and keys on first start; None when the store already has them.

    The keys are written out before the store commits them: a kill during first start then leaves either
    an empty store (the next start begins again and writes new keys over the file) or keys that are kept.
    """
    if not store.organizations.is_empty():
        return None
    credentials = Credentials.new()
    if credentials_out is not None:
        write_credentials(credentials_out, url, credentials)
    return store.organizations.bootstrap(credentials)


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on such sockets, and without it
    # each small response waits out a 40 ms delayed ACK (measured: 23 req/s on one connection).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            # "::" serves IPv4 too (as ::ffff:a.b.c.d), whatever the system's default for new sockets.
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()  # a port in use must not leak the socket
        raise
    sock.setblocking(False)
    return sock


def base_url(host: str, port: int, tls: bool) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}/v1"


def uvicorn_config(
    app: ASGIApp, tls: TlsOptions | None, config: SandboxConfig | None = None
) -> uvicorn.Config:
    """uvicorn's own proxy-header handling is off, whatever $FORWARDED_ALLOW_IPS says: it would rewrite the
    client address from X-Forwarded-For before the gateway runs. Only the gateway reads that header, and only
    from --trust-proxy peers, as the service's gateway does."""
    limits = config or SandboxConfig(data_dir=Path())
    options: dict[str, Any] = {}
    if tls:
        options = {"ssl_certfile": str(tls.cert), "ssl_keyfile": str(tls.key)}
        if tls.client_ca:
            options.update(ssl_ca_certs=str(tls.client_ca), ssl_cert_reqs=ssl.CERT_REQUIRED)
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
        proxy_headers=False,
        forwarded_allow_ips=[],  # given, so uvicorn never reads the environment variable for it
        # Slow clients (app/sandbox/gateway/slow_clients.py): what uvicorn offers, stated, and what it lacks, added.
        # httptools only (no h11 fallback, see slow_clients): raises HttpParserMissing where it is missing.
        http=guarded_httptools_protocol(limits.head_timeout, limits.max_connections, limits.send_timeout),
        timeout_keep_alive=KEEP_ALIVE,
        # WebSocket mode on /v1/responses (routes/responses_socket.py), a message no larger than a body may be.
        ws="websockets-sansio",
        ws_max_size=limits.max_body_bytes,
        **options,
    )


def write_credentials(path: Path, url: str, credentials: Credentials) -> None:
    """Readable by the owner only, whole or not at all (a temporary file, flushed, then renamed over)."""
    payload = {
        "base_url": url,
        "org_id": credentials.org_id,
        "project_id": credentials.project_id,
        "api_key": credentials.api_key,
        "admin_key": credentials.admin_key,
    }
    write_atomically(path, json.dumps(payload), mode=0o600)  # keys: readable by the owner only


class _PromptServer(uvicorn.Server):
    """uvicorn's server, woken as soon as it is told to exit (its main loop otherwise polls every 0.1 s)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake = asyncio.Event()
        self.startup_over = threading.Event()  # set once it listens, or once its start-up failed

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.startup_over.set()

    async def main_loop(self) -> None:
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):  # on_tick also refreshes the Date header once a second
            counter = (counter + 1) % 864000
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.1)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown, the same steps without its fixed waits. uvicorn sleeps 0.1 s after asking the
        open connections to close and then polls them every 0.1 s: every stop took at least 0.1 s (each quit
        of the console, ~25 s of the test suite's sandboxes). Here they are polled every 5 ms, within the same
        graceful deadline, after which what still runs is cancelled, as uvicorn does."""
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        state = self.server_state
        for connection in list(state.connections):
            connection.shutdown()  # an idle keep-alive connection closes; a busy one after its response
        deadline = time.monotonic() + (self.config.timeout_graceful_shutdown or 0)
        while (state.connections or state.tasks) and not self.force_exit:
            if self.config.timeout_graceful_shutdown is not None and time.monotonic() >= deadline:
                for task in state.tasks:
                    task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
                break
            await asyncio.sleep(0.005)
        if not self.force_exit:
            await self.lifespan.shutdown()

    def exit_now(self) -> None:
        self.should_exit = True
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already finished
                self._loop.call_soon_threadsafe(self._wake.set)


class SandboxServer:
    """A sandbox on its own thread: `start()` returns once it listens; `stop()` shuts it down."""

    def __init__(
        self,
        config: SandboxConfig,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: TlsOptions | None = None,
        credentials_out: Path | None = None,
    ) -> None:
        self.config = config
        self.host = host
        self.tls = tls
        guarded_httptools_protocol(config.head_timeout, config.max_connections)  # before anything is opened
        self._socket = bind_socket(host, port)  # first: a port in use fails before the store is opened
        try:
            self.compiler = Compiler()
            self.store = Store(config.database, config.clock, self.compiler.submit)
        except BaseException:
            self._socket.close()
            self.compiler.stop()
            raise
        self.port: int = self._socket.getsockname()[1]
        try:
            self.credentials = first_start_credentials(self.store, self.base_url, credentials_out)
        except BaseException:
            self._socket.close()
            self.compiler.stop()
            self.store.close()
            raise
        self.app = create_app(config, self.store)
        self.keeper = Keeper(self.store, config.usage_flush_seconds, config.expired_grace_seconds)
        hold_connections(config.max_connections)
        served = uvicorn_config(self.app, tls, config)
        if tls:  # certificates uploaded for mutual TLS are trusted at the next handshake: no restart
            served.load()
            assert served.ssl is not None
            self.store.certificates.trust(served.ssl)
        self._server = _PromptServer(served)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return base_url(self.host, self.port, self.tls is not None)

    @property
    def state(self) -> SandboxState:  # for tests that look inside
        return self.app.state

    @property
    def open_connections(self) -> int:
        """The client connections the server holds now (a test sees a dropped client go without reading)."""
        return len(self._server.server_state.connections)

    def start(self, timeout: float = 10) -> SandboxServer:
        self._thread = threading.Thread(target=self._run, name=f"sandbox:{self.port}", daemon=True)
        self._thread.start()
        self.keeper.start()
        # Woken when uvicorn's start-up is over (a 10 ms poll cost each start ~5 ms, the console's launch too).
        deadline = time.monotonic() + timeout
        while not self._server.startup_over.wait(0.05):
            if time.monotonic() > deadline or not self._thread.is_alive():
                break
        if not self._server.started:
            raise RuntimeError("the sandbox did not start in time")
        return self

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        keep = self.config.keep_responses_days
        pruning = asyncio.create_task(keep_pruning(self.store, keep)) if keep is not None else None
        try:
            await self._server.serve(sockets=[self._socket])
        finally:
            if pruning is not None:
                pruning.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await pruning
            # An engine that holds connections (the upstream engine's client) releases them on this loop.
            close = getattr(self.state.engine, "aclose", None)
            if close is not None:
                await close()

    def stop(self) -> None:
        self._server.exit_now()
        if self._thread:
            self._thread.join(timeout=10)
        self._socket.close()
        self.keeper.stop()
        self.compiler.stop()
        self.store.close()  # writes the usage counted since the last flush

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
