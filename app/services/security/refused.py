"""The requests the allowlists refused, read from the service page by page (`GET .../refused?since=`) for
the Refused view, and "Allow…" for a refused source; the status bar says when refusals start for a source
that a list admitted before (read from the list's admitted sources).

Read every `POLL_MS` while the view is open, and with the tab's own periodic read otherwise (every 30 s while
the Security tab is shown): the status bar's warning needs no view opened first.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from app.api.errors import ApiError
from app.core.security.history_rows import Change
from app.core.security.refused_rows import LIST_NAMES, RefusedRow, RefusedRows
from app.services.security.allowlist import AllowlistService
from app.services.session.session import ConsoleSession

POLL_MS = 1000
PAGE = 200
ADMITTED_DAYS = 30  # "admitted before": a list admitted the source in this many days
DAY = 86_400


class RefusedService(QObject):
    changed = Signal()
    failed = Signal(str)

    def __init__(
        self, session: ConsoleSession, allowlist: AllowlistService, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.allowlist = allowlist
        self.refused = RefusedRows()
        self.watching = (
            False  # reading since `started_at` (the view opened, or the tab's first periodic read)
        )
        self.started_at = 0  # refusals first seen after this are "starting" ones
        self.error = ""
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        allowlist.periodic.timeout.connect(self.watch)
        session.client_changed.connect(self.reset)

    def rows(self) -> list[RefusedRow]:
        return self.refused.rows()

    def reset(self) -> None:
        self.refused = RefusedRows()
        self.error = ""
        self.changed.emit()

    def open(self) -> None:
        """The view shows: read now and every POLL_MS until `close`."""
        if not self.watching:
            self.watching, self.started_at = True, int(time.time())
        self.poll()
        self.timer.start()

    def close(self) -> None:
        self.timer.stop()

    def watch(self) -> None:
        """The tab's periodic read: refusals are read from then on, so a source admitted before that starts
        being refused is said in the status bar whether or not the view was ever opened."""
        client = self.session.client
        if client is None or not client.has_key("admin"):
            return  # nothing to say in the status bar; the view says why when opened
        if not self.watching:
            self.watching, self.started_at = True, int(time.time())
        self.poll()

    def poll(self) -> None:
        client = self.session.client
        if client is None or not client.has_key("admin"):
            self.error = "The refused requests need the profile's admin key."
            self.changed.emit()
            return
        if not self.session.tasks.running("refused.poll"):
            self.session.tasks.start("refused.poll", self._poll())

    async def _poll(self) -> None:
        from app.api.allowlist_changes import refused_page

        client = self.session.client
        assert client is not None
        new: list[RefusedRow] = []
        try:
            while True:
                page = await refused_page(client.allowlists, self.refused.since, None, PAGE)
                new += self.refused.add(page.data)
                if not page.has_more:
                    break
        except ApiError as error:
            self.error = f"The refused requests could not be read: {error}"
            self.failed.emit(self.error)
        else:
            self.error = ""
            await self._tell_starting([row for row in new if row.first_seen >= self.started_at])
        self.changed.emit()

    async def _tell_starting(self, rows: list[RefusedRow]) -> None:
        """A warning in the status bar for each source newly refused by a list that admitted it lately."""
        from app.api.allowlist_changes import admitted_sources

        client = self.session.client
        if not rows or client is None:
            return
        since = int(time.time()) - ADMITTED_DAYS * DAY
        admitted: dict[str | None, set[str]] = {}
        for row in rows:
            lists = (
                [None, row.project_id]
                if row.list == "both"
                else [row.project_id if row.list == "project" else None]
            )
            for project_id in lists:
                if project_id not in admitted:
                    sources = await admitted_sources(client.allowlists, project_id, since)
                    admitted[project_id] = {s.source_ip for s in sources or ()}
            if any(row.source_ip in admitted[p] for p in lists):
                self.session.bus.warning(
                    f"Security: requests from {row.source_ip} are refused by {LIST_NAMES.get(row.list, row.list)} "
                    f"since {time.strftime('%H:%M:%S', time.localtime(row.first_seen))}; it was admitted before "
                    "(Security > List > Refused requests…)."
                )

    def _record(self, project_id: str | None, what: str, result: str = "ok") -> None:
        profile = self.session.profile
        label = self.allowlist.label_for(project_id)
        self.allowlist.history.record(profile.name if profile else "", label, Change.ADD, what, result)

    def allow(self, row: RefusedRow, description: str, expires_at: int | None) -> None:
        """Add the refused source to the list(s) that refused it, then read the lists again."""

        async def go() -> None:
            client = self.session.client
            assert client is not None
            targets = (
                [None, row.project_id]
                if row.list == "both"
                else [row.project_id if row.list == "project" else None]
            )
            what = f"{row.source_ip} “{description}” (refused before)"
            for project_id in targets:
                try:
                    await client.allowlists.add(
                        row.source_ip, description, project_id, expires_at, if_match=False
                    )
                except ApiError as error:
                    self._record(project_id, what, str(error))
                    self.failed.emit(f"{row.source_ip} could not be allowed: {error}")
                    return
                self._record(project_id, what)
            self.session.bus.info(f"Allowed {row.source_ip} in {row.refused_by}.")
            self.allowlist.refresh()

        self.session.tasks.start("refused.allow", go())
