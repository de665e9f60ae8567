"""The allowlist policy as pure functions, asked by the sandbox's Admin API and by the console alike.

A request passes when the organization's list admits its address AND, for a project's key, the project's
list does too; a list that is off admits everyone. A change that leaves the caller's own address outside
an enabled list locks the caller out. The lists are asked through `Membership`, which both the console's
EntryIndex and the sandbox's live Allowlist satisfy, so no list is copied to be asked. An entry admits until
its expiry's second, as the gateway does: `answer` asks `in_force` of each entry that holds the address.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from .index import EntryIndex
from .parse import Address, Network, unmapped


class Membership(Protocol):
    """What the policy needs to know of a list: who is admitted, and by which entries (their ids)."""

    def contains(self, address: Address) -> bool: ...

    def holders(self, address: Address) -> Sequence[str]: ...


def enabling_locks_out(members: Membership, source_ip: Address | None) -> bool:
    """Whether switching the list on, as its entries stand, leaves the caller's address out.
    An unknown address counts as left out: the service fails closed."""
    return source_ip is None or not members.contains(unmapped(source_ip))


def removal_locks_out(members: Membership, removed_ids: Collection[str], source_ip: Address | None) -> bool:
    """Whether removing these entries from an enabled list removes every entry that admits the caller.
    A caller no entry admits now is not locked out by a removal (nor is an unknown address)."""
    if source_ip is None:
        return False
    holders = members.holders(unmapped(source_ip))
    return bool(holders) and all(holder in removed_ids for holder in holders)


class Verdict(StrEnum):
    """An address under the organization-AND-project rule: admitted, or which list refuses it."""

    ADMITTED = "admitted"
    ORGANIZATION = "organization"  # refused by the organization's list alone
    PROJECT = "project"  # refused by the project's list alone
    BOTH = "both"


@dataclass(frozen=True)
class ListAnswer:
    """One list's answer for one address: off, admitted by an entry, or refused (with the nearest entry, and
    the entry that held it before it expired, if one did)."""

    enabled: bool
    admitted_by: Network | None = None
    nearest: Network | None = None
    expired: Network | None = None

    @property
    def admits(self) -> bool:
        return not self.enabled or self.admitted_by is not None


def nearest_entry(index: EntryIndex, address: Address) -> Network | None:
    """The entry of the same family whose range lies closest to `address` (one holding it if any)."""
    serial = index.nearest(unmapped(address))
    return index.network(serial) if serial is not None else None


def always_in_force(_serial: int) -> bool:
    return True


def answer(
    index: EntryIndex, enabled: bool, address: Address, in_force: Callable[[int], bool] = always_in_force
) -> ListAnswer:
    """What one list says of `address`; `in_force(serial)` says whether an entry still admits at the moment
    asked (an expired one holds the address and admits nobody)."""
    if not enabled:
        return ListAnswer(False)
    address = unmapped(address)
    holding = index.holding(address)
    lasting = [serial for serial in holding if in_force(serial)]
    if lasting:
        return ListAnswer(True, admitted_by=index.network(lasting[0]))
    expired = index.network(holding[0]) if holding else None
    return ListAnswer(True, nearest=nearest_entry(index, address), expired=expired)


def verdict(organization: ListAnswer, project: ListAnswer | None = None) -> Verdict:
    """The organization-AND-project rule; `project` is None for a request that names no project."""
    org_refuses = not organization.admits
    project_refuses = project is not None and not project.admits
    if org_refuses and project_refuses:
        return Verdict.BOTH
    if org_refuses:
        return Verdict.ORGANIZATION
    return Verdict.PROJECT if project_refuses else Verdict.ADMITTED


def never_admitted(organization: EntryIndex, project: EntryIndex) -> list[Network]:
    """The project's entries the organization's list admits no address of (with the organization's list
    on, they admit nobody). CIDR blocks nest or do not meet: a block shares addresses with the organization's
    list exactly when some organization entry equals it, holds it, or lies inside it."""
    never: list[Network] = []
    for serial, interval in enumerate(project.intervals):
        if interval is None:
            continue
        network = project.network(serial)
        if not organization.relate(network):
            never.append(network)
    return never
