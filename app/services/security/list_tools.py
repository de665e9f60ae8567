"""Simplify… and the evidence before a removal, for the list the Security tab shows.

Simplify sends its merges as one batch on the shown list's version, so the list is simplified whole or not
at all, and not at all if it changed since it was shown. The evidence is the sources the list admitted in
the last `EVIDENCE_DAYS` days, read when rows are selected (so the removal's question has it at hand).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError
from app.core.security.history_rows import Change
from app.core.security.sources import refused_after, within
from app.netrules.simplify import Listed, Simplification, simplify
from app.services.security.allowlist import AllowlistService
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from app.services.security.allowlist import Entry

EVIDENCE_DAYS = 30
FRESH_S = 60.0  # sources read this recently are used as they are
DAY = 86_400


class ListTools(QObject):
    sources_read = Signal()

    def __init__(
        self, session: ConsoleSession, allowlist: AllowlistService, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.allowlist = allowlist
        # list (project id, None for the organization's) -> (when read, [(source, hits, last seen)])
        self._sources: dict[str | None, tuple[float, list[tuple[str, int, int]]]] = {}

    # -- Simplify… -----------------------------------------------------------------------------------

    def simplification(self) -> Simplification:
        entries = [Listed(e.id, e.cidr, e.description, e.expires_at) for e in self.allowlist.entries]
        return simplify(entries, time.time())

    def apply_simplification(self, plan: Simplification) -> None:
        data = self.allowlist.data
        if data is None or not plan.merges:
            return
        project_id = self.allowlist.project_id

        async def go() -> None:
            from app.api.admin import AllowlistChanged
            from app.api.allowlist_changes import BatchParams, BatchUnsupported, apply_batch

            client = self.session.client
            assert client is not None
            changes: BatchParams = {
                "remove": plan.remove_ids,
                "add": [
                    {"cidr": m.cidr, "description": m.description, "expires_at": m.expires_at}
                    for m in plan.merges
                ],
            }
            # The version of the list as last read or changed here: what the preview was made from.
            version = client.allowlists.version(project_id) or data.version or ""
            what = f"{plan.before:,} entries into {plan.after:,}: " + ", ".join(m.cidr for m in plan.merges)
            try:
                await apply_batch(client.allowlists, changes, project_id, version)
            except AllowlistChanged:
                self.session.bus.warning(
                    "Simplify: the list changed since it was shown, so nothing was changed; look at it again."
                )
            except BatchUnsupported:
                self.session.bus.error(
                    "Simplify: this service takes no batch of changes; nothing was changed."
                )
            except ApiError as error:
                self.session.bus.error(f"Simplify: nothing was changed: {error}")
            else:
                self.session.bus.info(f"Simplified: {plan.before:,} entries are now {plan.after:,}.")
                self.allowlist.record(Change.SIMPLIFY, what)
            self.allowlist.refresh()

        self.session.tasks.start("allowlist.simplify", go())

    # -- evidence before a removal -------------------------------------------------------------------

    def read_sources(self) -> None:
        """Read the shown list's admitted sources unless read lately (rows were selected)."""
        project_id = self.allowlist.project_id
        cached = self._sources.get(project_id)
        client = self.session.client
        if (
            (cached and time.monotonic() - cached[0] < FRESH_S)
            or client is None
            or not client.has_key("admin")
        ):
            return

        async def go() -> None:
            from app.api.allowlist_changes import admitted_sources

            assert client is not None
            try:
                sources = await admitted_sources(
                    client.allowlists, project_id, int(time.time()) - EVIDENCE_DAYS * DAY
                )
            except ApiError:
                return  # the question goes without it: hits and last matched only
            if sources is not None:
                rows = [(s.source_ip, s.hits, s.last_seen) for s in sources]
                self._sources[project_id] = (time.monotonic(), rows)
                self.sources_read.emit()

        self.session.tasks.start("allowlist.sources", go())

    def evidence(
        self,
        removed: list[Entry],
        after: list[tuple[str, int | None]] | None = None,
        enabled: bool | None = None,
    ) -> list[str]:
        """For each entry: hits, last matched, and (when read) the sources it admitted, busiest first, and
        which of them the list without these entries (or `after`, on `enabled`, as a plan leaves it) would
        refuse."""
        now = time.time()
        gone = {e.id for e in removed}
        data = self.allowlist.data
        cached = self._sources.get(self.allowlist.project_id)
        sources = cached[1] if cached else None
        staying = (
            after
            if after is not None
            else [(e.cidr, e.expires_at) for e in self.allowlist.entries if e.id not in gone]
        )
        if enabled is None:
            enabled = data is not None and data.enabled
        refused = refused_after([s for s, _, _ in sources or ()], enabled, staying, now)
        lines = []
        for entry in removed:
            last = (
                time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.last_matched_at))
                if entry.last_matched_at
                else "never"
            )
            lines.append(f"{entry.cidr}: {entry.hit_count:,} hits as last read, last matched {last}")
            if sources is None:
                continue
            inside = set(within([s for s, _, _ in sources], entry.cidr))
            mine = [(s, hits) for s, hits, _ in sources if s in inside]
            total = sum(hits for _, hits in mine)
            lines.append(
                f"    last {EVIDENCE_DAYS} days: {total:,} request{'s' if total != 1 else ''} "
                f"from {len(mine):,} address{'es' if len(mine) != 1 else ''}"
            )
            for source, hits in mine[:5]:
                verdict = "would be refused" if source in refused else "still admitted"
                lines.append(f"    {source}: {hits:,} request{'s' if hits != 1 else ''}, {verdict}")
            if len(mine) > 5:
                lines.append(f"    … and {len(mine) - 5:,} more addresses")
        return lines
