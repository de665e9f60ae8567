"""The allowlist service: the lists of the chosen scope (read by AllowlistReader) and every change to them.

A change is sent with the version of the list it was decided on (If-Match): when another admin changed the
list meanwhile, the service refuses it (412) with the list as it stands, and `changed_under_you` says what
changed under you and offers to apply the change again. The service stops the changes that would lock the
caller out until they are forced; each change goes to the history.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QStandardPaths, Signal

from app.api.errors import ApiError, Conflict, ErrorCode, IpNotAllowed
from app.common.wording import counted
from app.core.security import files
from app.core.security.concurrency import ListDiff
from app.core.security.files import TransferError
from app.core.security.history_rows import Change
from app.netrules.transfer import ExportScope, ImportPlan, PlannedLine
from app.services.security.history import ChangeHistory
from app.services.security.reads import AllowlistReader, Availability
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:  # pydantic models: loaded with the client, after the window shows
    from app.api.admin import Allowlist, Entry, Project

__all__ = [
    "Allowlist",
    "AllowlistService",
    "Availability",
    "Change",
    "ChangedUnderYou",
    "Entry",
    "Project",
    "TransferError",
]

# The changes the service may stop because they would lock the caller out; they can be forced.
GUARDED = frozenset({Change.ENABLE, Change.REMOVE})


class StaleList(Exception):
    """The list changed elsewhere since it was shown; nothing was sent."""


class PartialImport(Exception):
    """Some lines of an import failed; each was reported on its own."""


@dataclass(frozen=True)
class ChangedUnderYou:
    """A change refused because the list changed since it was read: what changed, and the change again."""

    change: Change
    what: str  # the change, as the history names it
    diff: ListDiff
    again: Callable[[], None]  # sends the same change again, on the list as it now stands


class AllowlistService(AllowlistReader):
    # A change in GUARDED and the service's explanation: the change needs a typed confirmation.
    guard = Signal(Change, str)
    changed_elsewhere = Signal(str)  # an import's preview is out of date: nothing was sent
    changed_under_you = Signal(ChangedUnderYou)  # a 412: what changed, and the change again
    busy_changed = Signal(bool)  # a change is in flight (the periodic read waits for it)
    line_imported = Signal(int, bool, str)  # index in the sent lines, added, what happened

    def __init__(
        self, session: ConsoleSession, history: ChangeHistory | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(session, parent)
        self.history = history or ChangeHistory(session.data_dir / "allowlist-history.jsonl", self)
        self.changes_in_flight = 0
        self.refused_removal: list[str] = []  # the entries of the last removal the service's guard refused

    # -- files and settings -----------------------------------------------------------------------

    def entry_limit(self) -> int:
        return self.session.profiles.settings.load().security.entry_limit

    def file_folder(self) -> Path:
        """Where the import and export dialogs open: the folder used last, else Documents, else home. Never
        the working directory, which for an app started from a menu is nothing the person chose."""
        remembered = self.session.profiles.settings.load().security.transfer_folder
        documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
        return files.default_folder(remembered, documents)

    def remember_folder(self, folder: Path) -> None:
        self.session.profiles.settings.update(
            lambda settings: setattr(settings.security, "transfer_folder", str(folder))
        )

    def plan_file_import(self, path: Path) -> ImportPlan:
        """Read a file and plan its import into the shown list; TransferError says plainly what failed."""
        return files.plan_file(path, self.entries, self.entry_limit())

    def export_to(self, path: Path) -> int:
        """Write the shown list to a file; returns how many entries were written (TransferError if none)."""
        scope: ExportScope = {
            "scope": "organization" if self.project_id is None else "project",
            "project_id": self.project_id,
            "enabled": self.data is not None and self.data.enabled,
        }
        return files.write_file(path, self.entries, scope)

    # -- changes: each sent on the version it was decided on (If-Match), and kept in the history --

    def record(self, action: Change, what: str, result: str = "ok") -> None:
        profile = self.session.profile
        self.history.record(profile.name if profile else "", self.scope_label, action, what, result)

    async def _fresh(self) -> Allowlist:
        """Read the list again before an import, whose preview was planned on the list as shown; raise
        StaleList if someone else changed it since (the other changes rely on If-Match instead)."""
        client = self.session.client
        assert client is not None
        current = await client.allowlists.get(self.project_id)
        shown = self.data

        def ids(data: Allowlist | None) -> set[tuple[str, str]]:
            return {(e.id, e.cidr) for e in data.entries} if data is not None else set()

        if shown is None or ids(current) != ids(shown) or current.enabled != shown.enabled:
            self.newer()
            self.data = current
            if self.project_id is None:
                self.org_data = current
            self._loaded()
            raise StaleList(
                "The list was changed elsewhere since you opened it; it has been reloaded. "
                "Check it, then try again."
            )
        return current

    def run(
        self,
        name: Change,
        coroutine: Coroutine[Any, Any, None],
        what: str,
        again: Callable[[], None] | None = None,
        read_after: bool = True,
    ) -> None:
        """Run one change; its outcome goes to the history (`what` says what it was) and to the signals.
        `again` sends the same change anew, offered when the list changed under it (412). The lists are read
        again after it, unless it succeeded and `read_after` is False: the change showed the service's
        answer itself, which is the list as it is now."""
        shown = self.data

        async def wrapped() -> None:
            from app.api.admin import AllowlistChanged  # here: loaded with the client, which a change needs

            self._busy(+1)
            try:
                await coroutine
                self.record(name, what)
                if not read_after:
                    return
            except AllowlistChanged as refused:
                self.record(name, what, "not sent: another admin had changed the list")
                current = refused.current
                if current is not None:
                    self._answered(self.project_id, current)
                diff = ListDiff.between(shown, current) if current is not None else ListDiff()
                retry = again or (lambda: None)
                self.changed_under_you.emit(
                    ChangedUnderYou(name, what, diff, lambda: self._after_a_read(retry))
                )
            except StaleList as stale:
                self.record(name, what, "not sent: the list had been changed elsewhere")
                self.changed_elsewhere.emit(str(stale))
            except Conflict as conflict:
                if conflict.code == ErrorCode.WOULD_BLOCK_CALLER and name in GUARDED:
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
            finally:
                self._busy(-1)
            await self._load()

        self.session.tasks.start(f"allowlist.{name}", wrapped())

    def _after_a_read(self, change: Callable[[], None]) -> None:
        """Read the list (and with it the version the change will be sent with), then make the change."""

        async def go() -> None:
            await self._load()
            change()

        self.session.tasks.start("allowlist.again", go())

    def _busy(self, step: int) -> None:
        self.changes_in_flight += step
        self.busy_changed.emit(self.changes_in_flight > 0)

    def add(self, cidr: str, description: str, expires_at: int | None = None) -> None:
        """Add an entry (`expires_at`: Unix seconds, None for never), sent with the shown list's version."""

        async def go() -> None:
            client, scope = self.session.client, self.project_id
            assert client is not None
            entry = await client.allowlists.add(cidr, description, scope, expires_at)
            current = self.data  # as shown now: a read may have come in while the POST was out
            if current is not None and current.entry(entry.id) is None:  # a resent add answers its entry
                self._answered(scope, current.model_copy(update={"entries": (*current.entries, entry)}))
            self.session.bus.info(f"Added {cidr}.")

        # The POST's answer is the new entry: shown as it is, not by reading both lists again (two requests,
        # not four). Anything that went wrong still reads them again.
        what = f"{cidr}" + (f" “{description}”" if description else "")
        if expires_at is not None:
            what += f", expires {_moment(expires_at)}"
        self.run(Change.ADD, go(), what, lambda: self.add(cidr, description, expires_at), read_after=False)

    def set_expiry(self, entry_ids: list[str], expires_at: int | None) -> None:
        """Give entries a new expiry (None: never), as Extend does."""

        async def go() -> None:
            client, scope = self.session.client, self.project_id
            assert client is not None
            for entry_id in entry_ids:
                await client.allowlists.update_entry(entry_id, expires_at, project_id=scope)
            one = len(entry_ids) == 1
            verb = "expires" if one else "expire"  # "1 entry now expires", "2 entries now expire"
            said = f"never {verb}" if expires_at is None else f"{verb} {_moment(expires_at)}"
            self.session.bus.info(f"{len(entry_ids)} entr{'y' if one else 'ies'} now {said}.")

        what = ", ".join(self._cidr_of(i) for i in entry_ids) + (
            ": never expires" if expires_at is None else f": expires {_moment(expires_at)}"
        )
        self.run(
            Change.EXPIRY, go(), what, lambda: self.set_expiry(self._still_listed(entry_ids), expires_at)
        )

    def _still_listed(self, entry_ids: list[str]) -> list[str]:
        listed = {e.id for e in self.entries}
        return [i for i in entry_ids if i in listed]

    def remove(self, entry_ids: list[str], force: bool = False) -> None:
        async def go() -> None:
            client, scope = self.session.client, self.project_id
            assert client is not None
            removed: list[str] = []
            try:
                for entry_id in entry_ids:
                    await client.allowlists.remove(entry_id, scope, force=force)
                    removed.append(entry_id)
            finally:
                # What the service refused to remove (its lockout guard): a confirmed force removes these,
                # not whatever is selected by then.
                self.refused_removal = [entry_id for entry_id in entry_ids if entry_id not in removed]
                if removed and self.data is not None:
                    kept = tuple(entry for entry in self.data.entries if entry.id not in removed)
                    self._answered(scope, self.data.model_copy(update={"entries": kept}))
            self.session.bus.info(f"Removed {len(entry_ids)} entr{'y' if len(entry_ids) == 1 else 'ies'}.")

        self.run(
            Change.REMOVE,
            go(),
            ", ".join(self._cidr_of(i) for i in entry_ids) + (" (forced)" if force else ""),
            lambda: self.remove(self._still_listed(entry_ids), force),
        )

    def set_enabled(self, enabled: bool, force: bool = False) -> None:
        async def go() -> None:
            client, scope = self.session.client, self.project_id
            assert client is not None
            self._answered(scope, await client.allowlists.set_enabled(enabled, scope, force=force))
            self.session.bus.info(f"The list is now {'on' if enabled else 'off'}.")

        self.run(
            Change.ENABLE if enabled else Change.DISABLE,
            go(),
            f"switched the list {'on' if enabled else 'off'}" + (" (forced)" if force else ""),
            lambda: self.set_enabled(enabled, force),
            # The answer is the list as it is now. Read again only after a forced change, which may have
            # locked this console out: the read shows it at once.
            read_after=force,
        )

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

        self.run(Change.IMPORT, go(), f"{counted(len(lines), 'entry', 'entries')} from a file")


def _moment(at: int) -> str:
    from datetime import datetime

    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")
