"""The allowlists as last read (the shown scope, its list, the organization's, the projects) and what the
Security tab shows from them; Qt-free: nothing here fetches, changes or signals anything."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from app.core.security import checks, expiry
from app.netrules import EntryError, parse_address
from app.netrules.index import EntryIndex
from app.netrules.policy import answer, never_admitted

if TYPE_CHECKING:  # pydantic models: loaded with the client, after the window shows
    from app.api.admin import Allowlist, Entry, Project


class AllowlistState:
    """The lists of the chosen scope as last read; AllowlistService reads and changes them."""

    # Class defaults, all immutable: an instance holds its own values once it reads or resets them.
    project_id: str | None = None  # the shown list: None for the organization's, else a project's id
    data: Allowlist | None = None  # the shown list
    org_data: Allowlist | None = None  # the organization's list (`data` too when it is the one shown)
    projects: tuple[Project, ...] = ()
    _indexes: tuple[tuple[tuple[Entry, ...], EntryIndex], ...] = ()  # the last two lists indexed

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
        index = checks.index_of(entries)
        self._indexes = ((entries, index), *self._indexes[:1])
        return index

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

    def guard_index(self, now: float | None = None) -> EntryIndex:
        """The index the lockout guard decides by: the shown list without the entries that expire within the
        next minute (they never count as covering the caller). The loaded index when none does."""
        now = time.time() if now is None else now
        lasting = [entry for entry in self.entries if not expiry.ends_soon(entry.expires_at, now)]
        if len(lasting) == len(self.entries):
            return self.entry_index(self.data)
        return checks.index_of(lasting)

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
