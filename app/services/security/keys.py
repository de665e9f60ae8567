"""The keys of the organization (admin keys) and of its projects, for the Keys window: read, create (the
value shown once, and put into a profile's keychain on request), revoke.

Which key this console itself uses is told by the key's id (the sandbox's is the hash's head, computed
here) or by its redacted form; the value never leaves the keychain and the transport for that.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError
from app.api.keys import ApiKey, CreatedKey
from app.common.secrets import KeychainUnavailable
from app.core.security.history_rows import Change
from app.services.security.history import ChangeHistory
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from app.api.admin import Project
    from app.api.client import ServiceClient

__all__ = ["SLOT", "ApiKey", "CreatedKey", "KeysService"]

SLOT = {"admin": "admin_key", "project": "api_key"}  # where a key of each kind lives in a profile


class KeysService(QObject):
    loaded = Signal()  # `keys` (and `projects`) were read
    created = Signal(CreatedKey)  # its value, to show once
    revoked = Signal(str)  # the id of a key revoked
    failed = Signal(str)
    busy = Signal(bool)

    def __init__(
        self, session: ConsoleSession, history: ChangeHistory, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.history = history
        self.project_id: str | None = None  # None: the organization's admin keys
        self.keys: tuple[ApiKey, ...] = ()
        self.projects: tuple[Project, ...] = ()
        session.client_changed.connect(self._forget)

    def _forget(self) -> None:
        """Another profile (or the same, connected again): nothing read from the last one is shown."""
        self.project_id, self.keys, self.projects = None, (), ()

    # -- reading ----------------------------------------------------------------------------------

    def set_scope(self, project_id: str | None) -> None:
        self.project_id = project_id
        self.keys = ()
        self.refresh()

    def refresh(self) -> None:
        self.run("keys.read", self.read)

    async def read(self) -> None:
        client = self.client()
        if not self.projects:
            self.projects = await client.allowlists.projects()
        self.keys = await client.keys.list(self.project_id)
        self.loaded.emit()

    def scope_label(self, project_id: str | None = None) -> str:
        if project_id is None:
            return "Admin keys (organization)"
        project = next((p for p in self.projects if p.id == project_id), None)
        return f"Project {project.label if project else project_id}"

    def in_use(self, key: ApiKey) -> str | None:
        """ "admin_key" or "api_key" when this console's profile uses the key, else None."""
        client = self.session.client
        if client is None:
            return None
        settings = client.transport.settings
        value = settings.admin_key if key.kind == "admin" else settings.api_key
        return SLOT[key.kind] if key.is_value(value) else None

    # -- changes ----------------------------------------------------------------------------------

    def create(self, name: str, project_id: str | None, permissions: str | list[str]) -> None:
        async def create() -> None:
            made = await self.client().keys.create(name, project_id, permissions)
            self.record(project_id, f"created {made.key.name} ({made.key.id})")
            self.created.emit(made)
            if project_id == self.project_id:
                await self.read()

        self.run("keys.create", create)

    def revoke(self, key: ApiKey) -> None:
        """Revoke at once: the window asked the person first (with the typed word for this console's key)."""

        async def revoke() -> None:
            await self.client().keys.revoke(key.id, key.project_id if key.kind == "project" else None)
            self.record(key.project_id, f"revoked {key.name} ({key.id})")
            self.revoked.emit(key.id)
            await self.read()

        self.run("keys.revoke", revoke)

    def use_in_profile(self, profile_id: str, made: CreatedKey) -> str:
        """Put the key into the profile's keychain entry for its kind (and, for this console's profile, into
        the connection at once); where it went ("keychain" or "session"). Raises KeychainUnavailable."""
        profile = self.session.profiles.settings.load().find(profile_id)
        name = profile.name if profile else profile_id
        where = self.session.store_secret(profile_id, SLOT[made.key.kind], made.value, f"the key of “{name}”")
        self.switch_console(profile_id, made)
        return where

    def switch_console(self, profile_id: str, made: CreatedKey) -> None:
        current, client = self.session.profile, self.session.client
        if current is not None and current.id == profile_id and client is not None:
            if made.key.kind == "admin":
                client.transport.settings.admin_key = made.value
            else:
                client.transport.settings.api_key = made.value

    # -- plumbing ---------------------------------------------------------------------------------

    def client(self) -> ServiceClient:
        client = self.session.client
        if client is None:
            raise ApiError("No connection.")
        return client

    def record(self, project_id: str | None, what: str) -> None:
        profile = self.session.profile
        self.history.record(profile.name if profile else "", self.scope_label(project_id), Change.KEY, what)

    def run(self, name: str, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Start `work()` as the task `name` (replacing one of that name); its coroutine is made only when the
        task runs, so a task replaced before it started leaves no coroutine unawaited."""

        async def wrapped() -> None:
            self.busy.emit(True)
            try:
                await work()
            except (ApiError, KeychainUnavailable) as error:  # a refused keychain: the value is still shown
                self.failed.emit(str(error))
            finally:
                self.busy.emit(False)

        self.session.tasks.start(name, wrapped())
