"""The allowlists as last read (the shown scope, its list, the organization's, the projects) and what the
Security tab shows from them; Qt-free: nothing here fetches, changes or signals anything."""

from __future__ import annotations

import time
from concurrent.futures import Future, ThreadPoolExecutor
from operator import attrgetter
from typing import TYPE_CHECKING

from app.core.security import checks, expiry
from app.core.security.entry_search import EntrySearch
from app.netrules import EntryError, parse_address
from app.netrules.index import EntryIndex
from app.netrules.policy import answer, never_admitted

if TYPE_CHECKING:  # pydantic models: loaded with the client, after the window shows
    from app.api.admin import Allowlist, Entry, Project

# One thread builds the indexes of the lists as they load (0.2-0.4 s at 100,000 entries), so the thread that
# shows them (the GUI's) never does: it shows the rows first and asks the rest once the index is ready. The
# table's long sorts run on it too (entry_order.arrange_later), after the index of the list they sort.
BUILDER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="entry-index")


def _index_of(
    entries: tuple[Entry, ...], earlier: tuple[tuple[tuple[Entry, ...], Future[EntryIndex]], ...]
) -> EntryIndex:
    """The builder's job: the index of `entries`, or an earlier one of the same cidrs and ids in the same
    order (a reload every 30 s mostly finds the list unchanged: ~10 ms to compare 100,000 entries, where
    building costs 0.2-0.4 s). Earlier builds are done: the one builder thread runs its jobs in order."""
    cidrs, ids = list(map(attrgetter("cidr"), entries)), list(map(attrgetter("id"), entries))
    for held, future in earlier:
        if len(held) == len(entries) and future.done() and not future.cancelled() and not future.exception():
            if list(map(attrgetter("cidr"), held)) == cidrs and list(map(attrgetter("id"), held)) == ids:
                return future.result()  # an index is never changed once built: shared safely
    return EntryIndex.of_cidrs(cidrs, ids)


class AllowlistState:
    """The lists of the chosen scope as last read; AllowlistService reads and changes them."""

    # Class defaults, all immutable: an instance holds its own values once it reads or resets them.
    project_id: str | None = None  # the shown list: None for the organization's, else a project's id
    data: Allowlist | None = None  # the shown list
    org_data: Allowlist | None = None  # the organization's list (`data` too when it is the one shown)
    projects: tuple[Project, ...] = ()
    # The last three lists indexed (the organization's, the shown project's, the one before) and their builds.
    _indexes: tuple[tuple[tuple[Entry, ...], Future[EntryIndex]], ...] = ()
    _searches: tuple[
        tuple[tuple[Entry, ...], Future[EntrySearch]], ...
    ] = ()  # the last two, see search_later

    @property
    def source_ip(self) -> str | None:
        """The address the service saw this console at, on the last read."""
        return self.data.source_ip if self.data is not None else None

    @property
    def entries(self) -> tuple[Entry, ...]:
        return self.data.entries if self.data is not None else ()

    def index_later(self, data: Allowlist | None) -> Future[EntryIndex]:
        """The index of a list as loaded (`data` or `org_data`), built on the builder thread once per load."""
        entries: tuple[Entry, ...] = data.entries if data is not None else ()
        for held, future in self._indexes:
            if held is entries:
                return future
        future = BUILDER.submit(_index_of, entries, self._indexes)
        self._indexes = ((entries, future), *self._indexes[:2])
        return future

    def search_later(self, data: Allowlist | None) -> Future[EntrySearch]:
        """The filter's keys of a list as loaded, in its order by address (the entries table's), made on the
        builder thread after its index: the table takes them as they are (~0.1 s at 100,000 entries that
        the GUI thread does not spend)."""
        entries: tuple[Entry, ...] = data.entries if data is not None else ()
        for held, future in self._searches:
            if held is entries:
                return future
        index = self.index_later(data)
        future = BUILDER.submit(lambda: EntrySearch(entries, index.result().address_order()))
        self._searches = ((entries, future), *self._searches[:1])
        return future

    def ready_search(self, data: Allowlist | None) -> EntrySearch | None:
        """The keys `search_later` made for a list as loaded, if they are ready; else None."""
        entries = data.entries if data is not None else ()
        future = next((future for held, future in self._searches if held is entries), None)
        return future.result() if future is not None and future.done() else None

    def entry_index(self, data: Allowlist | None) -> EntryIndex:
        """The index of a list as loaded; waits for the builder thread if it is not ready yet."""
        return self.index_later(data).result()

    def ready_index(self, data: Allowlist | None, wait_up_to: int = 0) -> EntryIndex | None:
        """The index of a list as loaded if the builder has it, else None; built and waited for if the list
        has at most `wait_up_to` entries (a short list's index takes a few ms). A longer list's build is not
        started here: `index_later` starts it once its rows are on screen (see `AllowlistService._loaded`)."""
        if data is None or len(data.entries) <= wait_up_to:
            return self.index_later(data).result()
        entries = data.entries
        future = next((future for held, future in self._indexes if held is entries), None)
        return future.result() if future is not None and future.done() else None

    def indexes_ready(self) -> bool:
        """Whether the indexes of the shown list and the organization's are built (what the tab's checks use)."""
        return all(self.index_later(data).done() for data in (self.data, self.org_data))

    @property
    def scope_label(self) -> str:
        return self.label_for(self.project_id)

    def label_for(self, project_id: str | None) -> str:
        if project_id is None:
            return "Organization"
        name = next((p.label for p in self.projects if p.id == project_id), None)
        return f"Project: {name or project_id}"

    def _cidr_of(self, entry_id: str) -> str:
        entry = self.data.entry(entry_id) if self.data is not None else None
        return entry.cidr if entry is not None else entry_id

    # -- what the tab shows (computed by allowlist_checks, from netrules' policy) --------------------

    def candidate(self, text: str) -> checks.Candidate | None:
        return checks.candidate(text, self.entry_index(self.data), self.data is not None, self.source_ip)

    def check_ip(self, text: str) -> checks.IpCheck | None:
        """Check an IP at the moment asked: an entry that expired admits nobody, as at the gateway."""
        now = time.time()
        lists = [("Organization", self.org_data)]
        if self.project_id:
            lists.append(("Project", self.data))
        return checks.check_ip(
            text,
            [
                checks.ListToCheck(
                    label,
                    data is not None and data.enabled,
                    self.entry_index(data),
                    checks.in_force_at(data.entries if data is not None else (), now),
                )
                for label, data in lists
            ],
        )

    def admits(self, address: str) -> bool:
        """Whether the shown list, as last read, admits `address` now (a list that is off admits everyone)."""
        if self.data is None or not address:
            return False
        try:
            parsed = parse_address(address)
        except EntryError:
            return False
        in_force = checks.in_force_at(self.data.entries, time.time())
        return answer(self.entry_index(self.data), self.data.enabled, parsed, in_force).admits

    def guard_index(self, now: float | None = None) -> EntryIndex:
        """The index the lockout guard decides by: the shown list without the entries that expire within the
        next minute (they never count as covering the caller). The loaded index when none does."""
        now = time.time() if now is None else now
        lasting = [entry for entry in self.entries if not expiry.ends_soon(entry.expires_at, now)]
        if len(lasting) == len(self.entries):
            return self.entry_index(self.data)
        return BUILDER.submit(checks.index_of, lasting).result()  # not on this (the GUI's) thread

    def enable_lockout(self) -> str:
        return checks.enable_lockout(self.guard_index(), len(self.entries), self.source_ip)

    def remove_lockout(self, entry_ids: list[str]) -> str:
        if self.data is None or not self.data.enabled:
            return ""
        return checks.remove_lockout(self.guard_index(), set(entry_ids), self.source_ip)

    def rule(self) -> checks.Rule:
        org_on = self.org_data is not None and self.org_data.enabled
        if self.project_id is None:
            return checks.Rule(False, org_on)
        never: tuple[str, ...] = ()
        if org_on:
            found = never_admitted(self.entry_index(self.org_data), self.entry_index(self.data))
            never = tuple(str(network) for network in found)
        return checks.Rule(True, org_on, self.data is not None and self.data.enabled, never)
