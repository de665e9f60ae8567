"""Owns the allowlist state of the chosen scope; every change re-reads the list first (two admins at once)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError, Conflict, StatusError
from app.netrules.index import EntryIndex
from app.netrules.transfer import PlannedLine

from .history import ChangeHistory
from .session import ConsoleSession

REFRESH_INTERVAL_MS = 60_000


class StaleList(Exception):
    """The list changed elsewhere since it was shown; nothing was sent."""


class PartialImport(Exception):
    """Some lines of an import failed; each was reported on its own."""


class AllowlistService(QObject):
    loaded = Signal()
    failed = Signal(str)
    guard = Signal(
        str, str
    )  # action ("enable", "remove"), the service's explanation: needs a typed confirmation
    changed_elsewhere = Signal(str)
    line_imported = Signal(int, bool, str)  # index in the sent lines, added, what happened

    def __init__(
        self, session: ConsoleSession, history: ChangeHistory | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.history = history or ChangeHistory(session.data_dir / "allowlist-history.jsonl", self)
        self.project_id: str | None = None
        self.data: dict[str, Any] | None = None
        self.org_data: dict[str, Any] | None = None
        self.projects: list[dict[str, Any]] = []
        self._indexes: list[tuple[list[dict[str, Any]], EntryIndex]] = []  # the last two lists indexed
        # Refreshes every so often while someone looks at the list: the tab starts and stops it.
        self.periodic = QTimer(self)
        self.periodic.setInterval(REFRESH_INTERVAL_MS)
        self.periodic.timeout.connect(self.refresh)

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

    def entry_index(self, data: dict[str, Any] | None) -> EntryIndex:
        """The index of a list as loaded (`data` or `org_data`): built on first use, once per load."""
        entries = (data or {}).get("entries", [])
        for held, index in self._indexes:
            if held is entries:
                return index
        index = EntryIndex.of_entries(entries)
        self._indexes = [(entries, index), *self._indexes[:1]]
        return index

    @property
    def scope_label(self) -> str:
        return self.label_for(self.project_id)

    def label_for(self, project_id: str | None) -> str:
        if project_id is None:
            return "Organization"
        name = next((p.get("name") for p in self.projects if p.get("id") == project_id), None)
        return f"Project: {name or project_id}"

    def record(self, action: str, what: str, result: str = "ok") -> None:
        profile = self.session.profile
        self.history.record(profile.name if profile else "", self.scope_label, action, what, result)

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

    def run(self, name: str, coroutine: Any, what: str) -> None:
        """Run one change; its outcome goes to the history (`what` says what it was) and to the signals."""

        async def wrapped() -> None:
            try:
                await coroutine
                self.record(name, what)
            except StaleList as stale:
                self.record(name, what, "not sent: the list had been changed elsewhere")
                self.changed_elsewhere.emit(str(stale))
            except Conflict as conflict:
                if conflict.code == "would_block_caller":
                    self.record(name, what, "stopped: it would have blocked your own IP")
                    self.guard.emit(name, conflict.message)
                else:
                    self.record(name, what, conflict.message)
                    self.failed.emit(conflict.message)
            except PartialImport as partial:
                self.record(name, what, str(partial))
            except ApiError as error:
                self.record(name, what, str(error))
                self.failed.emit(str(error))
            await self._load()

        self.session.tasks.start(f"allowlist.{name}", wrapped())

    def add(self, cidr: str, description: str) -> None:
        async def go() -> None:
            await self._fresh()
            assert self.session.client is not None
            await self.session.client.allowlists.add(cidr, description, self.project_id)
            self.session.bus.info(f"Added {cidr}.")

        self.run("add", go(), f"{cidr}" + (f" “{description}”" if description else ""))

    def remove(self, entry_ids: list[str], force: bool = False) -> None:
        async def go() -> None:
            if not force:
                await self._fresh()
            assert self.session.client is not None
            for entry_id in entry_ids:
                await self.session.client.allowlists.remove(entry_id, self.project_id, force=force)
            self.session.bus.info(f"Removed {len(entry_ids)} entr{'y' if len(entry_ids) == 1 else 'ies'}.")

        self.run(
            "remove", go(), ", ".join(self._cidr_of(i) for i in entry_ids) + (" (forced)" if force else "")
        )

    def set_enabled(self, enabled: bool, force: bool = False) -> None:
        async def go() -> None:
            if not force:
                await self._fresh()
            assert self.session.client is not None
            await self.session.client.allowlists.set_enabled(enabled, self.project_id, force=force)
            self.session.bus.info(f"The list is now {'on' if enabled else 'off'}.")

        self.run(
            "enable" if enabled else "disable",
            go(),
            f"switched the list {'on' if enabled else 'off'}" + (" (forced)" if force else ""),
        )

    def _cidr_of(self, entry_id: str) -> str:
        entries = (self.data or {}).get("entries", [])
        return next((e["cidr"] for e in entries if e["id"] == entry_id), entry_id)

    # -- import -----------------------------------------------------------------------------------

    def import_entries(self, lines: list[PlannedLine]) -> None:
        """Send the preview's new lines one by one; each line's outcome goes out on `line_imported`."""

        async def go() -> None:
            await self._fresh()
            client = self.session.client
            assert client is not None
            added = failed = 0
            stop_reason = ""
            for index, line in enumerate(lines):
                if stop_reason:
                    self.line_imported.emit(index, False, f"not sent: {stop_reason}")
                    failed += 1
                    continue
                try:
                    await client.allowlists.add(line.canonical, line.source.description, self.project_id)
                except Conflict as conflict:
                    self.line_imported.emit(index, False, conflict.message)
                    failed += 1
                    continue
                except StatusError as error:
                    self.line_imported.emit(index, False, error.message)
                    failed += 1
                    if error.code == "too_many_entries" or error.status in (401, 403):
                        stop_reason = error.message  # every later line would meet the same answer
                    continue
                except ApiError as error:  # down, timed out: the rest is not sent
                    self.line_imported.emit(index, False, str(error))
                    failed += 1
                    stop_reason = str(error)
                    continue
                self.line_imported.emit(index, True, "added")
                added += 1
            summary = f"{added:,} added" + (f", {failed:,} failed" if failed else "")
            self.session.bus.info(f"Import: {summary}.")
            if failed:
                raise PartialImport(summary)

        self.run("import", go(), f"{len(lines):,} entries from a file")
