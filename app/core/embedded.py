"""The embedded sandbox: started in-process on 127.0.0.1 and a free port, data under the user's data dir."""

from __future__ import annotations

import errno
import ipaddress
import logging
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from app.common.engine_kind import EngineKind
from app.common.sqlite_rescue import SetAside, set_aside_if_damaged

if TYPE_CHECKING:  # the sandbox (starlette, uvicorn, Pillow) loads when it starts, after the window shows
    from app.sandbox import SandboxServer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SandboxKeys:
    """The ids and keys the embedded sandbox made at its first start, for the sandbox profile."""

    org_id: str
    project_id: str
    api_key: str
    admin_key: str


@dataclass(frozen=True)
class EngineChoice:
    """Which engine answers in the embedded sandbox: the simulated model, or GGUF weights run locally."""

    engine: EngineKind = EngineKind.SIMULATED  # simulated or local (upstream: the command line only)
    model_file: str = ""  # local: a GGUF file; "" = the `local` extra's Gemma 3 270M


class EngineState(StrEnum):
    """Where the embedded sandbox's engine stands; the local engine's load states and the simulated one."""

    SIMULATED = "simulated"
    WAITING = "waiting"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class EngineStatus:
    """What the embedded sandbox's engine is doing, and the words the status bar shows for it."""

    state: EngineState
    text: str  # for the status bar: the engine, the weights file and its size, what is happening

    @property
    def settled(self) -> bool:
        return self.state in (EngineState.SIMULATED, EngineState.READY, EngineState.FAILED)


SIMULATED = EngineStatus(EngineState.SIMULATED, "Sandbox: the simulated model (offline, deterministic)")


class EmbeddedSandbox:
    """The sandbox keeps one port across launches (so copied snippets keep working): the port chosen on
    first start is remembered through `remember_port`, and only a port taken by another program moves it."""

    def __init__(
        self,
        data_dir: Path,
        brand: str = "service",
        port: int = 0,
        remember_port: Callable[[int], None] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.brand = brand
        self.port = port
        self.remember_port = remember_port or (lambda _port: None)
        self.moved_from: int | None = None  # the remembered port, when another program held it
        self.engine = EngineChoice()
        self.server: SandboxServer | None = None
        self.set_aside: SetAside | None = None  # a damaged store moved aside at start, until it is reported

    def use_engine(self, choice: EngineChoice) -> None:
        """A different engine restarts the sandbox (on the same port, with the same store) at its next use."""
        if choice != self.engine:
            self.engine = choice
            self.stop()

    def engine_status(self) -> EngineStatus:
        """What answers, for the status bar: read from the running engine, never guessed."""
        engine = self.server.state.engine if self.server is not None else None
        status = getattr(engine, "status", None)
        if engine is None or status is None:
            return SIMULATED
        first = self.server.config.models[0] if self.server is not None else ""
        current = status(first)
        state = EngineState(
            current.state.value
        )  # the sandbox's LoadState, by its value: no import of it here
        size = f"{current.size_bytes / 1_000_000:,.0f} MB" if current.size_bytes else "size unknown"
        described = f"{current.file_name} ({size})"
        if state == EngineState.READY:
            return EngineStatus(state, f"Sandbox: local model {described}")
        if state == EngineState.FAILED:
            return EngineStatus(state, f"Sandbox: the local model cannot run: {current.error}")
        return EngineStatus(state, f"Sandbox: loading the local model {described}…")

    def start(self) -> SandboxServer:
        if self.server is None:
            from app.sandbox import SandboxConfig, SandboxServer

            config = SandboxConfig(
                data_dir=self.data_dir,
                brand=self.brand,
                engine=self.engine.engine,
                model_file=Path(self.engine.model_file).expanduser() if self.engine.model_file else None,
                # Trust loopback as a proxy, so the profile's simulated source IP (X-Forwarded-For) counts.
                trusted_proxies=[ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("::1/128")],
            )
            self.set_aside = set_aside_if_damaged(config.database) or self.set_aside
            try:
                server = SandboxServer(config, port=self.port)
            except OSError as error:
                if not self.port or error.errno != errno.EADDRINUSE:
                    raise
                self.moved_from = self.port
                log.warning("port %s is taken: the embedded sandbox moves to a free one", self.port)
                server = SandboxServer(config, port=0)
            if server.port != self.port:
                self.port = server.port
                self.remember_port(server.port)
            self.server = server.start()
            log.info("embedded sandbox at %s", self.server.base_url)
        return self.server

    @property
    def base_url(self) -> str:
        return self.start().base_url

    def first_start_keys(self) -> SandboxKeys | None:
        creds = self.start().credentials
        return (
            None
            if creds is None
            else SandboxKeys(creds.org_id, creds.project_id, creds.api_key, creds.admin_key)
        )

    def ids(self) -> tuple[str, str]:
        store = self.start().store
        org_id = store.organizations.orgs()[0]["id"]
        return org_id, store.organizations.projects(org_id)[0]["id"]

    def knows(self, key: str) -> bool:
        """Whether the sandbox's store holds this key (keys kept from a deleted store do not count)."""
        return self.start().store.keys.lookup(key) is not None

    def mint_keys(self) -> SandboxKeys:
        """New keys from the sandbox's own dashboard, when the old ones are gone (kept for a past session only)."""
        from app.sandbox.store.database import run_blocking

        keys = self.start().store.keys
        org_id, project_id = self.ids()
        return SandboxKeys(
            org_id,
            project_id,
            run_blocking(keys.create("project", org_id, project_id, "Console's project key")),
            run_blocking(keys.create("admin", org_id, name="Console's admin key")),
        )

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
