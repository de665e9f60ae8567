"""Owns the allowlist state of the chosen scope; every change re-reads the list first (two admins at once)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError, Conflict

from .session import ConsoleSession

REFRESH_INTERVAL_MS = 60_000


class StaleList(Exception):
    """The list changed elsewhere since it was shown; nothing was sent."""


class AllowlistService(QObject):
    loaded = Signal()
    failed = Signal(str)
    guard = Signal(
        str, str
    )  # action ("enable", "remove"), the service's explanation: needs a typed confirmation
    changed_elsewhere = Signal(str)

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.project_id: str | None = None
        self.data: dict[str, Any] | None = None
        self.org_data: dict[str, Any] | None = None
        self.projects: list[dict[str, Any]] = []
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_INTERVAL_MS)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    @property
    def available(self) -> tuple[bool, str]:
        client, profile = self.session.client, self.session.profile
        if client is None or profile is None:
            return False, "No connection."
        if not client.transport.settings.admin_key:
            return False, (
                f"The Security tab needs an admin key. Add it in File > Profiles for “{profile.name}”, "
                f"or set ${profile.admin_key_env}."
            )
        if not profile.org_id:
            return False, f"Set the organization id of “{profile.name}” in File > Profiles."
        return True, ""

    def refresh(self) -> None:
        if self.available[0]:
            self.session.tasks.start("allowlist.refresh", self._load())

    async def _load(self) -> None:
        client = self.session.client
        assert client is not None
        try:
            if not self.projects:
                self.projects = await client.allowlists.projects()
            self.org_data = await client.allowlists.get()
            self.data = await client.allowlists.get(self.project_id) if self.project_id else self.org_data
            self.loaded.emit()
        except ApiError as error:
            self.failed.emit(str(error))

    def set_scope(self, project_id: str | None) -> None:
        self.project_id = project_id
        self.data = None
        self.refresh()

    async def _fresh(self) -> dict[str, Any]:
        """Read the list again; raise StaleList if someone else changed it since it was shown."""
        client = self.session.client
        assert client is not None
        current = await client.allowlists.get(self.project_id)
        shown = self.data or {}
        ids = lambda data: {(e["id"], e["cidr"]) for e in data.get("entries", [])}  # noqa: E731
        if ids(current) != ids(shown) or current.get("enabled") != shown.get("enabled"):
            self.data = current
            if self.project_id is None:
                self.org_data = current
            self.loaded.emit()
            raise StaleList(
                "The list was changed elsewhere since you opened it; it has been reloaded. "
                "Check it, then try again."
            )
        return current

    def run(self, name: str, coroutine: Any) -> None:
        async def wrapped() -> None:
            try:
                await coroutine
            except StaleList as stale:
                self.changed_elsewhere.emit(str(stale))
            except Conflict as conflict:
                if conflict.code == "would_block_caller":
                    self.guard.emit(name, conflict.message)
                else:
                    self.failed.emit(conflict.message)
            except ApiError as error:
                self.failed.emit(str(error))
            await self._load()

        self.session.tasks.start(f"allowlist.{name}", wrapped())

    def add(self, cidr: str, description: str) -> None:
        async def go() -> None:
            await self._fresh()
            assert self.session.client is not None
            await self.session.client.allowlists.add(cidr, description, self.project_id)
            self.session.bus.info(f"Added {cidr}.")

        self.run("add", go())

    def remove(self, entry_ids: list[str], force: bool = False) -> None:
        async def go() -> None:
            if not force:
                await self._fresh()
            assert self.session.client is not None
            for entry_id in entry_ids:
                await self.session.client.allowlists.remove(entry_id, self.project_id, force=force)
            self.session.bus.info(f"Removed {len(entry_ids)} entr{'y' if len(entry_ids) == 1 else 'ies'}.")

        self.run("remove", go())

    def set_enabled(self, enabled: bool, force: bool = False) -> None:
        async def go() -> None:
            if not force:
                await self._fresh()
            assert self.session.client is not None
            await self.session.client.allowlists.set_enabled(enabled, self.project_id, force=force)
            self.session.bus.info(f"The list is now {'on' if enabled else 'off'}.")

        self.run("enable" if enabled else "disable", go())
