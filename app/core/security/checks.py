"""What the Security tab shows about the loaded lists, computed without Qt from netrules' policy.

Each function takes the loaded lists (typed models and their indexes) and returns a small frozen value the
panels draw; nothing here fetches or changes anything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from app.netrules import (
    EntryError,
    Relation,
    admits_every_address,
    describe_findings,
    parse_address,
    parse_entry,
    warnings_for,
)
from app.netrules.index import EntryIndex
from app.netrules.parse import ASCII_SPACE, Network
from app.netrules.policy import (
    ListAnswer,
    Verdict,
    always_in_force,
    answer,
    enabling_locks_out,
    removal_locks_out,
    verdict,
)

if TYPE_CHECKING:  # pydantic models: loaded with the client
    from app.api.admin import Entry


def index_of(entries: Sequence[Entry]) -> EntryIndex:
    """The membership index of a list's entries as the Admin API gave them."""
    return EntryIndex.of_cidrs(list(map(attrgetter("cidr"), entries)), list(map(attrgetter("id"), entries)))


def in_force_at(entries: Sequence[Entry], now: float) -> Callable[[int], bool]:
    """Whether the entry of a serial of `index_of(entries)` still admits at `now` (the gateway stops
    admitting by an entry at its expiry's second)."""

    def in_force(serial: int) -> bool:
        return serial >= len(entries) or not entries[serial].expired_at(now)

    return in_force


class Tone(StrEnum):
    """How a verdict reads: good, worth a second look, or refused."""

    GOOD = "good"
    CAUTION = "caution"
    BAD = "bad"


@dataclass(frozen=True)
class Candidate:
    """An entry being typed: whether it can be added, and what to tell the person about it."""

    network: Network | None
    text: str
    tone: Tone
    suggestions: tuple[str, ...] = ()
    addable: bool = False

    @property
    def admits_everyone(self) -> bool:
        return self.network is not None and admits_every_address(self.network)


def candidate(text: str, index: EntryIndex, loaded: bool, source_ip: str | None = None) -> Candidate | None:
    """The verdict on a typed entry against the shown list; None for an empty field. `source_ip` is the
    address the service sees this console at: an entry holding it gets no warning that the service never
    sees such addresses (the local sandbox sees loopback, and a service on the same network a private one)."""
    text = text.strip(ASCII_SPACE)  # as the API: any other space is refused by name, never dropped
    if not text:
        return None
    try:
        network = parse_entry(text)
    except EntryError as error:
        return Candidate(None, f"✗ {error.message}", Tone.BAD, error.suggestions)
    findings = index.relate(network)
    seen = parse_address(source_ip) if source_ip else None
    holds_you = (
        seen is not None
        and seen.version == network.version
        and seen in network
        and not admits_every_address(network)  # that warning stays, whoever it admits
    )
    notes = describe_findings(findings, str(network)) + ([] if holds_you else warnings_for(network))
    duplicate = any(f.relation is Relation.DUPLICATE for f in findings)
    heading = "✗ Duplicate" if duplicate else f"✓ {network}"
    tone = Tone.BAD if duplicate else Tone.CAUTION if notes else Tone.GOOD
    return Candidate(network, "\n".join([heading, *notes]), tone, (), loaded and not duplicate)


@dataclass(frozen=True)
class ListCheck:
    label: str  # "Organization" or "Project"
    answer: ListAnswer


class ListToCheck(NamedTuple):
    """One list Check an IP asks: its label, whether it is on, its index, and which entries are in force."""

    label: str  # "Organization" or "Project"
    enabled: bool
    members: EntryIndex  # the list's index
    in_force: Callable[[int], bool] = always_in_force


@dataclass(frozen=True)
class IpCheck:
    """Check an IP: the fault in what was typed, or each list's answer and the verdict of both."""

    error: str = ""
    lists: tuple[ListCheck, ...] = ()
    verdict: Verdict = Verdict.ADMITTED


def check_ip(text: str, lists: Sequence[ListToCheck]) -> IpCheck | None:
    """`lists`: the organization's list, then the project's when one is chosen."""
    text = text.strip(ASCII_SPACE)  # as the API: any other space is refused by name, never dropped
    if not text:
        return None
    try:
        address = parse_address(text)
    except EntryError as error:
        return IpCheck(error=error.message)
    checks = tuple(
        ListCheck(item.label, answer(item.members, item.enabled, address, item.in_force)) for item in lists
    )
    project = checks[1].answer if len(checks) > 1 else None
    return IpCheck(lists=checks, verdict=verdict(checks[0].answer, project))


def enable_lockout(index: EntryIndex, entries: int, source_ip: str | None) -> str:
    """Why switching the list on would lock the caller out, or "" when it would not."""
    address = parse_address(source_ip) if source_ip else None
    if not enabling_locks_out(index, address):
        return ""
    if not entries:
        return "The list is empty: switching it on blocks every API request, yours included."
    return f"No entry covers your address ({source_ip or 'unknown'}): you would be locked out."


def remove_lockout(index: EntryIndex, removed_ids: set[str], source_ip: str | None) -> str:
    """Why removing these entries from an enabled list would lock the caller out, or ""."""
    if not source_ip or not removal_locks_out(index, removed_ids, parse_address(source_ip)):
        return ""
    return f"Removing these entries would block your own address ({source_ip}) from the API."


@dataclass(frozen=True)
class Rule:
    """The effective rule of the chosen scope, for the line above the list."""

    project: bool
    organization_on: bool
    project_on: bool = False
    never_admitted: tuple[str, ...] = field(default=())
