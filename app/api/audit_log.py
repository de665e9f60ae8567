"""The Admin API's audit log, read page by page (its models are audit.py's)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from .admin import parse
from .audit import AuditEvent, AuditPage
from .transport import Transport


class AuditLog:
    """The organization's audit log: who changed an allowlist, newest first."""

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    async def page(
        self,
        limit: int = 20,
        after: str | None = None,
        event_type: str | None = None,
        project_id: str | None = None,
    ) -> AuditPage:
        """One page of the organization's audit log, newest first (`after`: the last id of the page before)."""
        params = {"limit": str(limit)}
        params.update({name: value for name, value in (("after", after), ("type", event_type)) if value})
        if project_id:
            params["project_id"] = project_id
        result, _ = await self._transport.request(
            "GET", f"/organizations/{self.org_id}/audit_log", key="admin", params=params
        )
        return parse(AuditPage, result, "an audit log page")

    async def events(
        self,
        event_type: str | None = None,
        project_id: str | None = None,
        page_size: int = 100,
        limit: int | None = None,
    ) -> AsyncIterator[AuditEvent]:
        """Every event (or the newest `limit`), newest first, page after page."""
        after: str | None = None
        given = 0
        while True:
            page = await self.page(page_size, after, event_type, project_id)
            for event in page.data:
                if limit is not None and given >= limit:
                    return
                given += 1
                yield event
            after = page.next_after
            if after is None:
                return
