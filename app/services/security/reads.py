"""Reading the allowlists of the chosen scope: whether the profile can, the reads and the periodic refresh,
and the state they leave (blocked while the allowlist refuses the admin key's own reads)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError, IpNotAllowed
from app.core.security.state import AllowlistState
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:  # pydantic models: loaded with the client, after the window shows
    from concurrent.futures import Future

    from app.api.admin import Allowlist

# While the admin key is blocked, the lists are read this often: a recovery made elsewhere (the dashboard)
# clears the banner within seconds, not at the next turn of the ordinary refresh (up to 37 s).
BLOCKED_REFRESH_S: float = 3


@dataclass(frozen=True)
class Availability:
    """Whether the Security tab can work with the current profile, and if not, what it needs."""

    ok: bool
    reason: str = ""


class AllowlistReader(QObject, AllowlistState):
    """Reads the lists of the chosen scope into its state; AllowlistService adds the changes."""

    loaded = Signal()
    indexed = (
        Signal()
    )  # after `loaded`: the lists' indexes are built (on the builder thread), checks answer now
    failed = Signal(str)
    blocked_changed = Signal()  # the allowlist began or stopped refusing the admin key's reads (`blocked_at`)

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.restore_scope: str | None = None  # the project chosen at the last launch, once the projects load
        # While the allowlist refuses the admin key's reads: the address the service saw ("" if it did not say).
        self.blocked_at: str | None = None
        # Reads the list every so often while someone looks at it (another admin's changes show up): the tab
        # starts and stops it, and skips a turn while a dialog is open or a change is in flight.
        self.periodic = QTimer(self)
        self.periodic.setInterval(self.refresh_seconds() * 1000)
        # Counts the reads started and the lists shown otherwise (a change's answer, another scope): a read
        # whose lists arrive after a newer one began, or after a change's answer was shown, may have been
        # answered before that change and is dropped, or it would put back a list without the new entry.
        self.generation = 0

    def newer(self) -> int:
        """A new generation of what the tab shows: any read older than it is dropped when it arrives."""
        self.generation += 1
        return self.generation

    def poll_ms(self) -> int:
        """The periodic read's interval now: quick while blocked, the setting otherwise."""
        return round((BLOCKED_REFRESH_S if self.blocked_at is not None else self.refresh_seconds()) * 1000)

    def refresh_seconds(self) -> int:
        """The `security.refresh_seconds` setting (app.core.settings.SecuritySettings)."""
        return self.session.profiles.settings.load().security.refresh_seconds

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
        self.newer()
        if self.blocked_at is not None:  # of the profile before: the new client's first read will tell
            self.blocked_at = None
            self.blocked_changed.emit()

    def refresh(self) -> None:
        if self.available.ok:
            self.session.tasks.start("allowlist.refresh", self._load())

    def set_scope(self, project_id: str | None) -> None:
        self.restore_scope = None  # a scope chosen now wins over the one of the last launch
        self.project_id = project_id
        self.data = None
        self.newer()
        self.refresh()

    async def _load(self) -> None:
        client = self.session.client
        assert client is not None
        this_read = self.newer()
        try:
            if not self.projects:
                self.projects = await client.allowlists.projects()
                self._restore_scope()
            org_data = await client.allowlists.get()
            data = await client.allowlists.get(self.project_id) if self.project_id else org_data
        except IpNotAllowed as error:  # the tab shows it as long as it lasts: no passing notice
            self._set_blocked(error.source_ip or "")
            return
        except ApiError as error:
            self.failed.emit(str(error))
            return
        self._set_blocked(None)
        if this_read != self.generation:  # a newer read, a change's answer or another scope came meanwhile
            return
        self.org_data, self.data = org_data, data
        self._loaded()

    def _loaded(self) -> None:
        """Say the lists are read (the rows can show), then, once built off this thread, that their indexes are.
        The builds start after the rows are shown: run beside them, a build holds the GIL through C calls of
        10-30 ms each, and the GUI thread, asking for it back at every call into Python, waited ~0.3 s to
        show the rows of a 100,000-entry list (for ~25 ms of its own work)."""
        self.loaded.emit()
        futures: list[Future[Any]] = [self.index_later(self.data), self.index_later(self.org_data)]
        futures.append(self.search_later(self.data))  # the table's filter keys, after the index
        if all(future.done() for future in futures):
            self.indexed.emit()
        else:
            self.session.tasks.start("allowlist.index", self._announce_index(futures))

    async def _announce_index(self, futures: list[Future[Any]]) -> None:
        import asyncio  # here, not at the top: asyncio costs ~30 ms before the first frame

        await asyncio.gather(*map(asyncio.wrap_future, futures))
        self.indexed.emit()

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
            self.session.report_blocked(source_ip or None, "admin")
        elif was is not None:
            self.session.report_unblocked()
        if (was is None) != (source_ip is None) and self.periodic.isActive():
            self.periodic.start(self.poll_ms())
        if was != source_ip:
            self.blocked_changed.emit()

    def _answered(self, scope: str | None, data: Allowlist) -> None:
        """Show the list of `scope` as the service's answer to a change describes it, before it is read again
        (which the change may have made impossible: a forced lockout)."""
        if scope != self.project_id:  # another scope was chosen meanwhile
            return
        self.newer()
        self.data = data
        if self.project_id is None:
            self.org_data = data
        self._loaded()
