"""The service's audit log, read page by page for the History dialog, merged there with this console's own
records (app/core/security/history_rows.py)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError
from app.core.security.history_rows import HistoryRow, Source, from_audit, iso_seconds
from app.services.security.history import ChangeHistory, ChangeRecord
from app.services.session.session import ConsoleSession

PAGE_SIZE = 50


def console_row(record: ChangeRecord) -> HistoryRow:
    return HistoryRow(
        iso_seconds(record.at),
        Source.CONSOLE,
        record.profile,
        record.scope,
        record.action,
        record.what,
        record.result,
        record.ok,
    )


class AuditLog(QObject):
    """Pages of the organization's audit log, newest first; `rows` holds what has been read so far."""

    changed = Signal()  # rows were read (or the log was started again)
    failed = Signal(str)

    def __init__(
        self,
        session: ConsoleSession,
        history: ChangeHistory,
        label_for: Callable[[str | None], str],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.history = history
        self.label_for = label_for
        self.rows: list[HistoryRow] = []
        self.after: str | None = None
        self.complete = False  # every page read
        self.loading = False
        self.error = ""

    def console_rows(self) -> list[HistoryRow]:
        return [console_row(record) for record in self.history.records()]

    def restart(self) -> None:
        self.rows, self.after, self.complete, self.error = [], None, False, ""
        self.load_more()

    def load_more(self) -> None:
        """Read the next (older) page."""
        if self.complete or self.loading:
            return
        client = self.session.client
        if client is None or not client.has_key("admin"):
            self.complete, self.error = True, "The service's log needs the profile's admin key."
            self.changed.emit()
            return
        self.loading = True
        self.session.tasks.start("audit.page", self._page())

    async def _page(self) -> None:
        client = self.session.client
        assert client is not None
        try:
            page = await client.audit_log.page(PAGE_SIZE, self.after)
        except ApiError as error:
            self.error = f"The service's log could not be read: {error}"
            self.failed.emit(self.error)
            self.complete = True
        else:
            self.rows += [from_audit(event, self.label_for) for event in page.data]
            self.after = page.next_after
            self.complete = self.after is None
        finally:
            self.loading = False
        self.changed.emit()
