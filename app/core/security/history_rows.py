"""The History dialog's rows: this console's own records and the service's audit log, in one shape, merged
by time and saying which is which. Qt-free."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.audit import AuditEvent, AuditState


class Change(StrEnum):
    """A change to an allowlist as the History names it. The values are the words stored in the console's
    history file (one JSON line a change): changing one would leave that change's lines unreadable."""

    ADD = "add"
    REMOVE = "remove"
    ENABLE = "enable"
    DISABLE = "disable"
    IMPORT = "import"  # entries from a file, from this console
    EXPIRY = "expiry"  # a new expiry, from this console
    ROTATION = "rotation"  # a step of an address rotation, from this console
    UPDATE = "update"  # the service's log: a new expiry or description, from anywhere
    EXPIRED = "expired"  # the service's log: the service removed an entry a grace period after it expired
    KEY = "key"  # a key created, revoked or rotated from this console (its name and id, never its value)
    SIMPLIFY = "simplify"  # Simplify…: entries merged into fewer ranges, from this console
    POLICY = "policy"  # a policy file applied to a list, from this console


class Source(StrEnum):
    SERVICE = "service"  # the service's audit log: every admin, script and the service itself
    CONSOLE = "this console"  # the changes made from this console, kept in its data directory


@dataclass(frozen=True)
class HistoryRow:
    at: float  # Unix seconds
    source: Source
    who: str  # the profile (this console), or the admin key, the dashboard or the service (the log)
    scope: str
    # A kind of change the service's log names and this console does not know stays its last word.
    action: Change | str
    what: str
    result: str
    ok: bool
    from_address: str = ""  # the log: the source address the service saw


ACTIONS = {
    "ip_allowlist.entry.created": Change.ADD,
    "ip_allowlist.entry.deleted": Change.REMOVE,
    "ip_allowlist.entry.updated": Change.UPDATE,
    "ip_allowlist.entry.expired": Change.EXPIRED,
    "ip_allowlist.enabled": Change.ENABLE,
    "ip_allowlist.disabled": Change.DISABLE,
}


def iso_seconds(iso: str) -> float:
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return 0.0
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


def _state(state: AuditState | None) -> str:
    if state is None:
        return ""
    if state.cidr is None and state.enabled is not None:
        return "on" if state.enabled else "off"
    words = [state.cidr or ""]
    if state.description:
        words.append(f"“{state.description}”")
    if state.expires_at is not None:
        words.append("expires " + datetime.fromtimestamp(state.expires_at).strftime("%Y-%m-%d %H:%M"))
    return " ".join(w for w in words if w)


def _prompt_version(state: AuditState | None) -> str:
    """A stored prompt's version as the Prompts tab names it: its name, "v" and the number, and its note."""
    if state is None or not (state.name or state.version):
        return ""
    words = [state.name or state.id or "", f"v{state.version}" if state.version else ""]
    if state.note:
        words.append(f"“{state.note}”")
    return " ".join(word for word in words if word)


def from_audit(event: AuditEvent, label_for: Callable[[str | None], str]) -> HistoryRow:
    """One event of the service's log as a row; `label_for(project_id)` names the scope as the tab does."""
    actor = event.actor
    kind = actor.type.value
    who = {"dashboard": "dashboard", "service": "the service"}.get(kind, "")
    if not who:
        who = (
            f"key {actor.name} ({actor.id})"
            if actor.name and actor.id
            else f"key {actor.name or actor.id or '?'}"
        )
    before, after = _state(event.before), _state(event.after)
    what = after or before or (event.entry_id or "")  # a key's events name the key by its id
    if before and after and before != after:
        what = f"{before} → {after}"
    result = event.result.value
    if result == "applied":
        result = "ok"
    elif event.code:
        result = f"{result}: {event.code}"
    if event.forced:
        result += " (forced)"
    action = ACTIONS.get(event.type, event.type.rsplit(".", 1)[-1])
    if event.type.startswith("certificate."):  # mutual TLS: which certificate, as the log names it
        action, what = f"certificate {action}", event.entry_id or what
    elif event.type.startswith("prompt."):  # a version saved in the Prompts tab: which prompt, which version
        action, what = "prompt saved", _prompt_version(event.after) or what
    return HistoryRow(
        float(event.created_at),
        Source.SERVICE,
        who,
        label_for(event.project_id if event.scope == "project" else None),
        action,
        what,
        result,
        result.startswith("ok"),
        event.source_ip or "",
    )


def merged(
    console: Sequence[HistoryRow], service: Sequence[HistoryRow], service_complete: bool
) -> list[HistoryRow]:
    """Both sources, newest first (`console` comes oldest first, as recorded; `service` newest first, as
    the log pages it). While older pages of the log are still to load, the console's rows stop at
    the oldest event loaded, so that paging back adds rows at the bottom and never in between."""
    oldest = min((row.at for row in service), default=None)
    kept = [row for row in console if service_complete or oldest is None or row.at >= oldest]
    # Both newest first before the (stable) sort: rows of the same second keep their order, newest first.
    return sorted([*reversed(kept), *service], key=lambda row: row.at, reverse=True)
