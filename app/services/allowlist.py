"""Owns the allowlist state of the chosen scope; every change re-reads the list first (two admins at once)."""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError, Conflict, IpNotAllowed
from app.netrules import EntryError, parse_address
from app.netrules.index import EntryIndex
from app.netrules.policy import answer, never_admitted
from app.netrules.transfer import ImportPlan, PlannedLine

from . import allowlist_checks as checks
from . import allowlist_files as files
from .allowlist_files import TransferError
from .history import ChangeHistory
from .session import ConsoleSession

if TYPE_CHECKING:  # pydantic models: loaded with the client, after the window shows
    from app.api.admin import Allowlist, Entry, Project

__all__ = ["Allowlist", "AllowlistService", "Availability", "Change", "Entry", "Project", "TransferError"]

REFRESH_INTERVAL_MS = 60_000
DEFAULT_ENTRY_LIMIT = 1000  # CONTRACT.md: 1,000 per list by default; the service does not report it


class Change(StrEnum):
    """A change to a list, as the history names it."""

    ADD = "add"
    REMOVE = "remove"
    ENABLE = "enable"
    DISABLE = "disable"
    IMPORT = "import"


# The changes the service may stop because they would lock the caller out; they can be forced.
GUARDED = frozenset({Change.ENABLE, Change.REMOVE})


@dataclass(frozen=True)
class Availability:
    """Whether the Security tab can work with the current profile, and if not, what it needs."""

    ok: bool
    reason: str = ""


class StaleList(Exception):
    """The list changed elsewhere since it was shown; nothing was sent."""


class PartialImport(Exception):
    """Some lines of an import failed; each was reported on its own."""


class AllowlistService(QObject):
    loaded = Signal()
    failed = Signal(str)
    blocked_changed = Signal()  # the allowlist began or stopped refusing the admin key's reads (`blocked_at`)
    guard = Signal(str, str)  # a Change in GUARDED, the service's explanation: needs a typed confirmation
    changed_elsewhere = Signal(str)
    line_imported = Signal(int, bool, str)  # index in the sent lines, added, what happened

    def __init__(
        self, session: ConsoleSession, history: ChangeHistory | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.history = history or ChangeHistory(session.data_dir / "allowlist-history.jsonl", self)
        self.project_id: str | None = None
        self.data: Allowlist | None = None
        self.org_data: Allowlist | None = None
        self.projects: tuple[Project, ...] = ()
        self.restore_scope: str | None = None  # the project chosen at the last launch, once the projects load
        # While the allowlist refuses the admin key's reads: the address the service saw ("" if it did not say).
        self.blocked_at: str | None = None
        self._indexes: list[tuple[tuple[Entry, ...], EntryIndex]] = []  # the last two lists indexed
        # Refreshes every so often while someone looks at the list: the tab starts and stops it.
        self.periodic = QTimer(self)
        self.periodic.setInterval(REFRESH_INTERVAL_MS)
        self.periodic.timeout.connect(self.refresh)

    @property
    def available(self) -> Availability:
        client, profile = self.session.client, self.session.profile
        if client is None or profile is None:
            return Availability(False, "No connection.")
        if not client.has_key("admin"):
            return Availability(
                False,
                f"The Security tab needs an admin key. Add it in File > Profiles for “{profile.name}”, "
                f"or set ${profile.admin_key_env}.",
            )
        if not profile.org_id:
            return Availability(False, f"Set the organization id of “{profile.name}” in File > Profiles.")
        return Availability(True)

    def reset(self) -> None:
        """Forget the lists of the profile before (the session's client changed)."""
        self.projects = ()
        self.project_id = None
        self.data = self.org_data = None
        if self.blocked_at is not None:  # of the profile before: the new client's first read will tell
            self.blocked_at = None
            self.blocked_changed.emit()

    def refresh(self) -> None:
        if self.available.ok:
            self.session.tasks.start("allowlist.refresh", self._load())

    async def _load(self) -> None:
        client = self.session.client
        assert client is not None
        try:
            if not self.projects:
                self.projects = await client.allowlists.projects()
                self._restore_scope()
            self.org_data = await client.allowlists.get()
            self.data = await client.allowlists.get(self.project_id) if self.project_id else self.org_data
        except IpNotAllowed as error:  # the tab shows it as long as it lasts: no passing notice
            self._set_blocked(error.source_ip or "")
            return
        except ApiError as error:
            self.failed.emit(str(error))
            return
        self._set_blocked(None)
        self.loaded.emit()

    def _restore_scope(self) -> None:
        """The scope of the last launch, now that the projects are known; a project gone since falls back to
        the organization's list."""
        wanted, self.restore_scope = self.restore_scope, None
        if wanted and self.project_id is None:
            self.project_id = wanted if any(project.id == wanted for project in self.projects) else None

    def _set_blocked(self, source_ip: str | None) -> None:
        """Whether the admin key's reads are refused by the allowlist; the session's state follows."""
        was, self.blocked_at = self.blocked_at, source_ip
        if source_ip is not None:
            self.session.report_blocked(source_ip or None)
        elif was is not None:
            self.session.report_unblocked()
        if was != source_ip:
            self.blocked_changed.emit()

    def _answered(self, scope: str | None, data: Allowlist) -> None:
        """Show the list of `scope` as the service's answer to a change describes it, before it is read again
        (which the change may have made impossible: a forced lockout)."""
        if scope != self.project_id:  # another scope was chosen meanwhile
            return
        self.data = data
        if self.project_id is None:
            self.org_data = data
        self.loaded.emit()

    @property
    def source_ip(self) -> str | None:
        """The address the service saw this console at, on the last read."""
        return self.data.source_ip if self.data is not None else None

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self.data.entries if self.data is not None else ()

    def entry_index(self, data: Allowlist | None) -> EntryIndex:
        """The index of a list as loaded (`data` or `org_data`): built on first use, once per load."""
        entries: tuple[Entry, ...] = data.entries if data is not None else ()
        for held, index in self._indexes:
            if held is entries:
                return index
        index = EntryIndex.of_cidrs([entry.cidr for entry in entries], [entry.id for entry in entries])
        self._indexes = [(entries, index), *self._indexes[:1]]
        return index

    # -- what the tab shows (computed by allowlist_checks, from netrules' policy) --------------------

    def candidate(self, text: str) -> checks.Candidate | None:
        return checks.candidate(text, self.entry_index(self.data), self.data is not None)

    def check_ip(self, text: str) -> checks.IpCheck | None:
        lists = [("Organization", self.org_data)]
        if self.project_id:
            lists.append(("Project", self.data))
        return checks.check_ip(
            text,
            [(label, data is not None and data.enabled, self.entry_index(data)) for label, data in lists],
        )

    def admits(self, address: str) -> bool:
        """Whether the shown list, as last read, admits `address` (a list that is off admits everyone)."""
        if self.data is None or not address:
            return False
        try:
            parsed = parse_address(address)
        except EntryError:
            return False
        return answer(self.entry_index(self.data), self.data.enabled, parsed).admits

    def enable_lockout(self) -> str:
        return checks.enable_lockout(self.entry_index(self.data), len(self.entries), self.source_ip)

    def remove_lockout(self, entry_ids: list[str]) -> str:
        if self.data is None or not self.data.enabled:
            return ""
        return checks.remove_lockout(self.entry_index(self.data), set(entry_ids), self.source_ip)

    def rule(self) -> checks.Rule:
        org_on = self.org_data is not None and self.org_data.enabled
        if self.project_id is None:
            return checks.Rule(False, org_on)
        never: tuple[str, ...] = ()
        if org_on:
            found = never_admitted(self.entry_index(self.org_data), self.entry_index(self.data))
            never = tuple(str(network) for network in found)
        return checks.Rule(True, org_on, self.data is not None and self.data.enabled, never)

    # -- files and settings -----------------------------------------------------------------------

    def entry_limit(self) -> int:
        value = self.session.profiles.settings.value("security/entry_limit", DEFAULT_ENTRY_LIMIT)
        try:
            return max(1, int(str(value)))
        except (TypeError, ValueError):
            return DEFAULT_ENTRY_LIMIT

    def plan_file_import(self, path: Path) -> ImportPlan:
        """Read a file and plan its import into the shown list; TransferError says plainly what failed."""
        return files.plan_file(path, self.entries, self.entry_limit())

    def export_to(self, path: Path) -> int:
        """Write the shown list to a file; returns how many entries were written (TransferError if none)."""
        scope = {
            "scope": "organization" if self.project_id is None else "project",
            "project_id": self.project_id,
            "enabled": self.data is not None and self.data.enabled,
        }
        return files.write_file(path, self.entries, scope)

    @property
    def scope_label(self) -> str:
        return self.label_for(self.project_id)

    def label_for(self, project_id: str | None) -> str:
        if project_id is None:
            return "Organization"
        name = next((p.label for p in self.projects if p.id == project_id), None)
        return f"Project: {name or project_id}"

    def record(self, action: str, what: str, result: str = "ok") -> None:
        profile = self.session.profile
        self.history.record(profile.name if profile else "", self.scope_label, action, what, result)

    def set_scope(self, project_id: str | None) -> None:
        self.restore_scope = None  # a scope chosen now wins over the one of the last launch
        self.project_id = project_id
        self.data = None
        self.refresh()

    async def _fresh(self) -> Allowlist:
        """Read the list again; raise StaleList if someone else changed it since it was shown."""
        client = self.session.client
        assert client is not None
        current = await client.allowlists.get(self.project_id)
        shown = self.data

        def ids(data: Allowlist | None) -> set[tuple[str, str]]:
            return {(e.id, e.cidr) for e in data.entries} if data is not None else set()

        if shown is None or ids(current) != ids(shown) or current.enabled != shown.enabled:
            self.data = current
            if self.project_id is None:
                self.org_data = current
            self.loaded.emit()
            raise StaleList(
                "The list was changed elsewhere since you opened it; it has been reloaded. "
                "Check it, then try again."
            )
        return current

    def run(self, name: Change, coroutine: Coroutine[Any, Any, None], what: str) -> None:
        """Run one change; its outcome goes to the history (`what` says what it was) and to the signals."""

        async def wrapped() -> None:
            try:
                await coroutine
                self.record(name, what)
            except StaleList as stale:
                self.record(name, what, "not sent: the list had been changed elsewhere")
                self.changed_elsewhere.emit(str(stale))
            except Conflict as conflict:
                if conflict.code == "would_block_caller" and name in GUARDED:
                    self.record(name, what, "stopped: it would have blocked your own IP")
                    self.guard.emit(name, conflict.message)
                else:
                    self.record(name, what, conflict.message)
                    self.failed.emit(conflict.message)
            except PartialImport as partial:
                self.record(name, what, str(partial))
            except IpNotAllowed as error:  # the read below shows the block in the tab
                self.record(name, what, str(error))
                self.session.bus.warning(f"Security: nothing was changed: {error.message}")
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

        self.run(Change.ADD, go(), f"{cidr}" + (f" “{description}”" if description else ""))

    def remove(self, entry_ids: list[str], force: bool = False) -> None:
        async def go() -> None:
            if not force:
                await self._fresh()
            client, scope = self.session.client, self.project_id
            assert client is not None
            removed: list[str] = []
            try:
                for entry_id in entry_ids:
                    await client.allowlists.remove(entry_id, scope, force=force)
                    removed.append(entry_id)
            finally:
                if removed and self.data is not None:
                    kept = tuple(entry for entry in self.data.entries if entry.id not in removed)
                    self._answered(scope, self.data.model_copy(update={"entries": kept}))
            self.session.bus.info(f"Removed {len(entry_ids)} entr{'y' if len(entry_ids) == 1 else 'ies'}.")

        self.run(
            Change.REMOVE,
            go(),
            ", ".join(self._cidr_of(i) for i in entry_ids) + (" (forced)" if force else ""),
        )

    def set_enabled(self, enabled: bool, force: bool = False) -> None:
        async def go() -> None:
            if not force:
                await self._fresh()
            client, scope = self.session.client, self.project_id
            assert client is not None
            self._answered(scope, await client.allowlists.set_enabled(enabled, scope, force=force))
            self.session.bus.info(f"The list is now {'on' if enabled else 'off'}.")

        self.run(
            Change.ENABLE if enabled else Change.DISABLE,
            go(),
            f"switched the list {'on' if enabled else 'off'}" + (" (forced)" if force else ""),
        )

    def _cidr_of(self, entry_id: str) -> str:
        entry = self.data.entry(entry_id) if self.data is not None else None
        return entry.cidr if entry is not None else entry_id

    # -- import -----------------------------------------------------------------------------------

    def import_entries(self, lines: list[PlannedLine]) -> None:
        """Send the preview's new lines one by one; each line's outcome goes out on `line_imported`."""

        async def go() -> None:
            await self._fresh()
            client = self.session.client
            assert client is not None
            added, failed = await files.send_lines(
                client.allowlists, lines, self.project_id, self.line_imported.emit
            )
            summary = f"{added:,} added" + (f", {failed:,} failed" if failed else "")
            self.session.bus.info(f"Import: {summary}.")
            if failed:
                raise PartialImport(summary)

        self.run(Change.IMPORT, go(), f"{len(lines):,} entries from a file")
