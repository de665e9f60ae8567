"""`service-console allowlist ...`: the allowlist commands, on the same client and checks as the window.

The lockout guard is the window's: `AllowlistState` (app.core.security.state) decides from the lists as read
whether a change would lock this machine out, and the service's own guard stops what slipped past it
(another admin's change in between); both end in exit 1 unless `--force`. Each change sends the version it
read (If-Match); when the list changed in between, it is read again, checked again and sent again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from app.core.security.expiry import ExpiryError, expiry_state, parse_expires
from app.core.security.state import AllowlistState
from app.netrules import EntryError, canonical_entry, parse_address, parse_entry
from app.netrules.policy import Verdict
from app.netrules.transfer import ExportScope

from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.admin import Allowlist, Entry
    from app.api.client import ServiceClient

T = TypeVar("T")
ATTEMPTS = 3  # a change meeting a list changed under it (412) is read, checked and sent again this often
POLL_FIRST_S, POLL_MAX_S = 0.05, 1.0


@dataclass(frozen=True)
class Options:
    project: str | None = None
    expires: str | None = None
    description: str = ""
    wait: bool = False
    wait_timeout: float = 120.0
    force: bool = False


def entry_json(entry: Entry, now: float) -> dict[str, Any]:
    state = expiry_state(entry.expires_at, now)
    return {
        "id": entry.id,
        "cidr": entry.cidr,
        "description": entry.description,
        "created_at": entry.created_at,
        "expires_at": entry.expires_at,
        "expired": entry.expired or state.expired,
        "hit_count": entry.hit_count,
        "last_matched_at": entry.last_matched_at,
    }


def entry_line(entry: Entry, now: float) -> str:
    state = expiry_state(entry.expires_at, now)
    expiry = "never expires" if state.never else state.text if state.expired else f"expires in {state.text}"
    parts = [f"{entry.cidr:<24}", f"{entry.id:<18}", f"{expiry:<22}", f"{entry.hit_count:>8,} hits"]
    return "  ".join(parts) + (f"  {entry.description}" if entry.description else "")


class AllowlistCommands:
    """One command against one list (the organization's, or `--project`'s)."""

    def __init__(self, client: ServiceClient, options: Options) -> None:
        self.client = client
        self.lists = client.allowlists
        self.options = options
        self.state = AllowlistState()

    @property
    def scope(self) -> ExportScope:
        project = self.state.project_id
        return {"scope": "project" if project else "organization", "project_id": project}

    async def read(self) -> Allowlist:
        """Read the organization's list and the chosen one into the state (the guard decides from both)."""
        state = self.state
        if self.options.project and state.project_id is None:
            state.project_id = await self._project_id(self.options.project)
        state.org_data = await self.lists.get()
        state.data = await self.lists.get(state.project_id) if state.project_id else state.org_data
        return state.data

    async def _project_id(self, wanted: str) -> str:
        projects = await self.lists.projects()
        found = next((p for p in projects if wanted in (p.id, p.name)), None)
        if found is None:
            names = ", ".join(p.label for p in projects) or "none"
            raise CommandFailed(Exit.USAGE, f"No project “{wanted}” in the organization (projects: {names}).")
        return found.id

    async def changing(self, change: Callable[[], Awaitable[T]]) -> T:
        """Run a change made from a fresh read; on a 412 the list is read again and the change re-decided."""
        from app.api.errors import PreconditionFailed

        for attempt in range(ATTEMPTS):
            try:
                return await change()
            except PreconditionFailed:
                if attempt == ATTEMPTS - 1:
                    raise
                await self.read()
        raise AssertionError("unreachable")

    # -- the commands -----------------------------------------------------------------------------

    async def whoami(self) -> Outcome:
        from app.api.errors import IpNotAllowed

        try:
            data = await self.lists.get()
        except IpNotAllowed as error:  # refused: the refusal still names the address, which is the answer
            seen = error.source_ip
            return Outcome(
                [f"{seen or 'unknown'} (the organization's allowlist refuses this address)"],
                {"source_ip": seen, "blocked": True},
            )
        return Outcome([data.source_ip or "unknown"], {"source_ip": data.source_ip, "blocked": False})

    async def list_entries(self) -> Outcome:
        data = await self.read()
        now = time.time()
        head = f"{self.state.scope_label}: {'on' if data.enabled else 'off'}, {len(data.entries):,} entries"
        lines = [head, *(entry_line(entry, now) for entry in data.entries)]
        payload = {
            **self.scope,
            "enabled": data.enabled,
            "version": data.version,
            "source_ip": data.source_ip,
            "entries": [entry_json(entry, now) for entry in data.entries],
        }
        return Outcome(lines, payload)

    async def check(self, address: str | None) -> Outcome:
        data = await self.read()
        text = address or data.source_ip or ""
        result = self.state.check_ip(text)
        if result is None or result.error:
            raise CommandFailed(Exit.USAGE, result.error if result else "No address to check.")
        admitted = result.verdict is Verdict.ADMITTED
        lists = [
            {
                "list": check.label.lower(),
                "enabled": check.answer.enabled,
                "admits": check.answer.admits,
                "admitted_by": str(check.answer.admitted_by) if check.answer.admitted_by else None,
            }
            for check in result.lists
        ]
        said = "admitted" if admitted else "refused"
        lines = [f"{text}: {said}"] + [
            f"  {item['list']}: {'off' if not item['enabled'] else 'admits' if item['admits'] else 'refuses'}"
            + (f" ({item['admitted_by']})" if item["admitted_by"] else "")
            for item in lists
        ]
        return Outcome(lines, {**self.scope, "address": text, "admitted": admitted, "lists": lists})

    async def set_enabled(self, enabled: bool) -> Outcome:
        async def change() -> Allowlist:
            if enabled and not self.options.force:
                why = self.state.enable_lockout()
                if why:
                    raise CommandFailed(
                        Exit.REFUSED_BY_GUARD, f"{why} Nothing was changed (--force overrides)."
                    )
            return await self.lists.set_enabled(enabled, self.state.project_id, force=self.options.force)

        await self.read()
        data = await self.changing(change)
        return Outcome(
            [f"{self.state.scope_label}: the list is now {'on' if data.enabled else 'off'}."],
            {**self.scope, "enabled": data.enabled, "version": data.version},
        )

    async def remove(self, wanted: list[str]) -> Outcome:
        async def change() -> tuple[list[Entry], list[str]]:
            found, missing = self._find(wanted)
            ids = [entry.id for entry in found]
            why = self.state.remove_lockout(ids)
            if why and not self.options.force:
                raise CommandFailed(Exit.REFUSED_BY_GUARD, f"{why} Nothing was changed (--force overrides).")
            for entry in found:
                await self.lists.remove(entry.id, self.state.project_id, force=self.options.force)
            return found, missing

        await self.read()
        removed, missing = await self.changing(change)
        now = time.time()
        lines = [f"Removed {entry.cidr} ({entry.id})." for entry in removed]
        lines += [f"{text}: not listed; nothing to remove." for text in missing]
        return Outcome(
            lines,
            {**self.scope, "removed": [entry_json(e, now) for e in removed], "not_listed": missing},
        )

    def _find(self, wanted: list[str]) -> tuple[list[Entry], list[str]]:
        """The listed entries named by id or by address (in any spelling of it), and the names not listed."""
        found: list[Entry] = []
        missing: list[str] = []
        data = self.state.data
        for text in wanted:
            entry = data.entry(text) if data is not None else None
            if entry is None and data is not None:
                entry = data.with_cidr(_canonical(text))
            if entry is None:
                missing.append(text)
            elif entry not in found:
                found.append(entry)
        return found, missing

    async def add(self, cidr: str | None) -> Outcome:
        options = self.options
        data = await self.read()
        text = cidr or data.source_ip
        if not text:
            raise CommandFailed(Exit.USAGE, "The service did not say which address it sees: name the entry.")
        network = _canonical(text)
        expires_at = _expires(options.expires)

        async def change() -> tuple[Entry, str]:
            listed = self.state.data.with_cidr(network) if self.state.data is not None else None
            if listed is None:
                entry = await self.lists.add(network, options.description, self.state.project_id, expires_at)
                return entry, "added"
            if expires_at is not None and listed.expires_at != expires_at:  # a job run again: extend it
                entry = await self.lists.update_entry(listed.id, expires_at, project_id=self.state.project_id)
                return entry, "extended"
            return listed, "already listed"

        entry, what = await self.changing(change)
        now = time.time()
        state = expiry_state(entry.expires_at, now)
        expiry = "" if state.never else f", expires in {state.text}"
        lines = [f"{entry.cidr} ({entry.id}): {what}{expiry}."]
        payload: dict[str, Any] = {
            **self.scope,
            "result": what.replace(" ", "_"),
            "entry": entry_json(entry, now),
        }
        if options.wait:
            waited = await self.wait_admitted(entry)
            lines.append(f"Admitted after {waited:.3f} s.")
            payload["waited_s"] = round(waited, 4)
        return Outcome(lines, payload)

    async def wait_admitted(self, entry: Entry) -> float:
        """Poll until the service admits the entry's address; the seconds it took (the measured propagation).

        Admitted means: a read of the list answers (this machine is let through) and lists the entry, the
        lists as read admit the address, and, when the entry covers this machine and an API key is at hand,
        an API request from here is let through too."""
        from app.api.errors import IpNotAllowed

        started = time.monotonic()
        network = parse_entry(entry.cidr)
        delay = POLL_FIRST_S
        while True:
            try:
                await self.read()
                if self._admits(entry, str(network.network_address)) and await self._api_admits(network):
                    return time.monotonic() - started
            except IpNotAllowed:
                pass  # not yet: this machine is still refused
            waited = time.monotonic() - started
            if waited >= self.options.wait_timeout:
                raise CommandFailed(
                    Exit.NETWORK,
                    f"{entry.cidr} was added, but the service did not admit it within {waited:.0f} s.",
                    {"entry": entry_json(entry, time.time())},
                )
            await asyncio.sleep(delay)
            delay = min(delay * 2, POLL_MAX_S)

    def _admits(self, entry: Entry, address: str) -> bool:
        data = self.state.data
        if data is None or data.entry(entry.id) is None:
            return False
        check = self.state.check_ip(address)
        return check is not None and not check.error and check.verdict is Verdict.ADMITTED

    async def _api_admits(self, network: Any) -> bool:
        from app.api.errors import IpNotAllowed

        seen = self.state.source_ip
        if not self.client.has_key("api") or not seen or parse_address(seen) not in network:
            return True
        try:
            await self.client.model_list()
        except IpNotAllowed:
            return False
        return True


def _canonical(text: str) -> str:
    try:
        return canonical_entry(text)  # its own rule: ASCII spaces around it go, any other space is refused
    except EntryError as error:
        raise CommandFailed(Exit.USAGE, f"{text}: {error.message}") from None


def _expires(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return parse_expires(text, time.time())
    except ExpiryError as error:
        raise CommandFailed(Exit.USAGE, str(error)) from None
