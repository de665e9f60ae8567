"""The console's session: the current profile, its client, its connection state, and the embedded sandbox."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError, ConnectionFailed, IpNotAllowed, Unauthorized
from app.common.proxy_url import BadProxyUrl
from app.common.secrets import KeychainUnavailable, SecretStore
from app.core.embedded import EmbeddedSandbox, EngineChoice, EngineState
from app.core.profile import connection_settings

if TYPE_CHECKING:  # httpx-backed: imported when the first client is made, after the window shows
    from app.api.client import ModelInfo, ServiceClient
    from app.api.transport import ConnectionSettings
from app.core.tasks import TaskRegistry
from app.services.session.messages import MessageBus
from app.services.session.profiles import Profile, ProfileStore

log = logging.getLogger(__name__)


class ConnectionState(StrEnum):
    """Where the current profile's connection stands; shown in the status bar."""

    CHECKING = "checking"
    OK = "ok"
    DOWN = "down"
    BAD_KEY = "bad_key"
    BLOCKED = "blocked"
    NO_KEY = "no_key"
    ERROR = "error"


class ConsoleSession(QObject):
    client_changed = Signal()
    connection_changed = Signal(ConnectionState, str)  # where the connection stands, a sentence saying why
    engine_changed = Signal(str)  # the sandbox's engine, as the status bar says it ("" for other profiles)
    models_changed = Signal()  # `model_details` was read again from the server
    simulated_ip_changed = Signal(str)  # the sandbox profile now plays this source address

    def __init__(
        self,
        profiles: ProfileStore,
        secrets: SecretStore,
        bus: MessageBus,
        data_dir: Path,
        ask_session_only: Callable[[str], bool] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.profiles = profiles
        self.secrets = secrets
        self.bus = bus
        self.tasks = TaskRegistry()
        self.data_dir = data_dir
        settings = profiles.settings

        def remember_port(port: int) -> None:
            settings.update(lambda saved: setattr(saved.sandbox, "port", port))

        self.sandbox = EmbeddedSandbox(
            data_dir / "sandbox",
            port=settings.load().sandbox.port,  # one port across launches: snippets keep working
            remember_port=remember_port,
        )
        self.ask_session_only = ask_session_only or (lambda _message: False)
        self.client: ServiceClient | None = None
        self.profile: Profile | None = None
        self.state: ConnectionState = ConnectionState.CHECKING
        self.detail = ""
        self.model_details: dict[str, str] = {}  # model name -> what serves it (the server's `owned_by`)
        self.model_functions: dict[str, bool | None] = {}  # model name -> calls functions (None: not said)
        self._engine_poll: QTimer | None = None
        self.blocked_key = ""  # while BLOCKED: "project" or "admin", the key the allowlist refused

    # -- profiles and clients ---------------------------------------------------------------------

    def store_secret(self, profile_id: str, name: str, value: str, label: str = "key") -> str:
        """Keychain, or with the person's consent this session only; never a file. `label` names the
        secret in the question ("the admin key of “Production”"), asked once per secret."""
        try:
            return self.secrets.set(profile_id, name, value)
        except KeychainUnavailable as error:
            if self.ask_session_only(
                f"{error} Keep {label} for this session only? It is forgotten when the console quits; "
                "to keep it across launches without a keychain, set it in the profile's environment variable."
            ):
                return self.secrets.set(profile_id, name, value, session_only=True)
            raise

    def _prepare_sandbox(self, profile: Profile) -> Profile:
        """The embedded sandbox's keys need no keychain and no question: the console owns its store and
        mints new keys whenever the ones it kept are gone (or were kept for a past session only)."""
        self.sandbox.use_engine(EngineChoice(profile.engine, profile.model_file))
        keys = self.sandbox.first_start_keys()
        if (aside := self.sandbox.set_aside) is not None:
            self.sandbox.set_aside = None
            lost = "new keys were made, and its allowlists and stored responses start empty"
            self.bus.error(aside.explain("The local sandbox's store", lost))
        kept = [self.secrets.get(profile.id, name) for name in ("api_key", "admin_key")]
        if keys is None and not all(key and self.sandbox.knows(key) for key in kept):
            keys = self.sandbox.mint_keys()
        if keys is not None:
            for name, value in (("api_key", keys.api_key), ("admin_key", keys.admin_key)):
                try:
                    self.secrets.set(profile.id, name, value)
                except KeychainUnavailable:
                    self.secrets.set(profile.id, name, value, session_only=True)
        org_id, project_id = self.sandbox.ids()
        profile.base_url, profile.org_id, profile.project_id = self.sandbox.base_url, org_id, project_id
        return profile

    def settings_for(self, profile: Profile, proxy_password: str | None = None) -> ConnectionSettings:
        """How to reach the profile's service; `proxy_password` (typed, not yet saved) before the stored one."""
        return connection_settings(profile, self.secrets, proxy_password)

    async def activate(self, profile_id: str | None = None) -> None:
        """Switch to a profile (the current one by default): close the old client, make the new one."""
        if (damaged := self.profiles.settings.damaged) is not None:  # found at start, said once on screen
            self.profiles.settings.damaged = None
            self.bus.error(damaged.explain())
        profile = (
            self.profiles.get(profile_id or self.profiles.current_id())
            or self.profiles.ensure_sandbox_profile()
        )
        self.profiles.set_current(profile.id)
        if profile.is_sandbox:
            try:
                profile = self._prepare_sandbox(profile)
            except (OSError, sqlite3.Error) as error:
                self._set_state(ConnectionState.DOWN, f"The local sandbox could not start: {error}.")
                return
        old, self.client = self.client, None
        if old is not None:
            await old.aclose()
        self.profile = profile
        from app.api.client import ServiceClient

        try:
            self.client = ServiceClient(self.settings_for(profile), profile.org_id)
            if profile.is_sandbox and profile.simulated_ip:  # the Playground's requests play it
                self.client.set_played_ip(profile.simulated_ip)
        except BadProxyUrl as error:
            self._set_state(ConnectionState.ERROR, f"{error} Fix the Proxy URL in File > Profiles… (Ctrl+,).")
            self.bus.error(f"“{profile.name}” cannot connect: {self.detail}")  # on screen, not only the log
        except ApiError as error:
            self._set_state(ConnectionState.ERROR, str(error))
            self.bus.error(f"“{profile.name}” cannot connect: {error}")
        self.client_changed.emit()
        self._watch_engine(profile)
        if self.client is not None:
            await self.check_connection()

    def _watch_engine(self, profile: Profile) -> None:
        """Say which engine answers; while local weights load, say so until they are ready or failed."""
        if self._engine_poll is not None:
            self._engine_poll.stop()
            self._engine_poll = None
        if not profile.is_sandbox:
            self.engine_changed.emit("")
            return
        status = self.sandbox.engine_status()
        self.engine_changed.emit(status.text)
        if status.settled:
            return
        poll = self._engine_poll = QTimer(self)
        poll.setInterval(250)

        def check() -> None:
            current = self.sandbox.engine_status()
            self.engine_changed.emit(current.text)
            if current.settled:
                poll.stop()
                if current.state == EngineState.FAILED:
                    self.bus.error(current.text)
                self.tasks.start("session.models", self._read_models())

        poll.timeout.connect(check)
        poll.start()

    def _keep_models(self, listed: list[ModelInfo]) -> None:
        self.model_details = {model.id: model.owned_by for model in listed}
        self.model_functions = {model.id: model.calls_functions for model in listed}
        self.models_changed.emit()

    async def _read_models(self) -> None:
        client = self.client
        if client is None:
            return
        try:
            listed = await client.model_list()
        except ApiError:
            return  # the connection check says why
        self._keep_models(listed)

    def recovery_command(self) -> str | None:
        """The exact command that switches the embedded sandbox's organization list off, straight in its store
        (its dashboard, which no allowlist covers); None for other profiles, whose dashboard is the web one."""
        if self.profile is None or not self.profile.is_sandbox:
            return None
        import subprocess
        import sys

        program = [sys.executable] if getattr(sys, "frozen", False) else [sys.executable, "-m", "app"]
        words = [*program, "sandbox", "allowlist", "disable", "--data", str(self.sandbox.data_dir)]
        if sys.platform == "win32":
            return subprocess.list2cmdline(words)
        import shlex

        return shlex.join(words)

    def set_simulated_ip(self, ip: str) -> None:
        """Sandbox profiles only: the Playground's requests play another source address from the next on
        (the console's own Admin API calls stay at this machine's)."""
        if self.profile is not None and self.profile.is_sandbox and self.client is not None:
            self.profile.simulated_ip = ip
            stored = self.profiles.get(self.profile.id)
            if stored is not None:
                stored.simulated_ip = ip
                self.profiles.save(stored)
            self.client.set_played_ip(ip or None)
            self.simulated_ip_changed.emit(ip)

    # -- connection state -------------------------------------------------------------------------

    def _set_state(self, state: ConnectionState, detail: str) -> None:
        self.state, self.detail = state, detail
        self.connection_changed.emit(state, detail)

    def report_blocked(self, source_ip: str | None, key: str = "project") -> None:
        """A request of this session was refused by the IP allowlist: the connection is blocked, said at once
        (not at the next Check). `key`: which was refused, "project" (the Responses API, which the project's
        list and the organization's cover) or "admin" (the Admin API, which only the organization's covers)."""
        self.blocked_key = key
        covered = (
            "the organization's list covers the Admin API; a project's list never does"
            if key == "admin"
            else "the organization's list or this project's refuses it; the admin key may still work"
        )
        self._set_state(
            ConnectionState.BLOCKED,
            f"The IP allowlist refuses the {key} key: the service sees you at {source_ip or 'an unknown IP'} "
            f"({covered}).",
        )

    def report_unblocked(self) -> None:
        """A request went through again after a block: check the connection again to say how it stands."""
        if self.state == ConnectionState.BLOCKED:
            self.tasks.start("session.check", self.check_connection())

    async def check_connection(self) -> ConnectionState:
        client = self.client
        if client is None:
            return self.state
        self._set_state(ConnectionState.CHECKING, "Checking the connection…")
        if not client.has_key("api") and not client.has_key("admin"):
            self._set_state(
                ConnectionState.NO_KEY,
                "The keychain is locked: unlock it (your desktop's keyring), then press Check."
                if self.secrets.locked
                else "No API key: add one in File > Profiles… (Ctrl+,).",
            )
            return self.state
        try:
            if client.has_key("api"):
                self._keep_models(await client.model_list())
            else:
                await client.allowlists.get()
            self._set_state(ConnectionState.OK, f"Connected to {client.base_url}.")
        except IpNotAllowed as error:
            self.report_blocked(error.source_ip, "project" if client.has_key("api") else "admin")
        except Unauthorized:
            self._set_state(
                ConnectionState.BAD_KEY, "The API key was refused: check it in File > Profiles… (Ctrl+,)."
            )
        except ConnectionFailed as error:  # not reached, a TLS handshake refused, or no answer in time
            self._set_state(ConnectionState.DOWN, str(error))
        except ApiError as error:
            self._set_state(ConnectionState.ERROR, str(error))
        return self.state

    async def test_settings(self, settings: ConnectionSettings, org_id: str) -> str:
        """For the settings dialog's 'Test connection': a sentence, good or bad."""
        from app.api.client import ServiceClient

        try:
            client = ServiceClient(settings, org_id)
        except ApiError as error:
            return f"✗ {error}"
        except Exception as error:  # the dialog says whatever failed; the log keeps the trace
            log.exception("Test connection could not make a client")
            return f"✗ The connection could not be set up: {error}"
        async with client:
            try:
                models = await client.models() if settings.api_key else []
                if settings.admin_key and org_id:
                    await client.allowlists.get()
                return f"✓ Connected. Models: {', '.join(models) or '(no API key to list them)'}."
            except IpNotAllowed as error:
                return f"✗ Blocked by the IP allowlist: the service sees you at {error.source_ip}."
            except Unauthorized:
                return "✗ The key was refused (401)."
            except ApiError as error:
                return f"✗ {error}"

    async def shutdown(self) -> None:
        if self._engine_poll is not None:
            self._engine_poll.stop()
        await self.tasks.cancel_all()
        if self.client is not None:
            await self.client.aclose()
            self.client = None
        self.sandbox.stop()
