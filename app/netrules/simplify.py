"""Simplify a list: the fewest CIDRs that admit exactly the addresses its entries admit, never one more.

Entries are merged only with entries that expire at the same second (or never): a range made of an entry
that expires and one that does not would go on admitting the first one's addresses after its expiry,
which is wider. Expired entries are left as they are. Within a group the standard library's
`ipaddress.collapse_addresses` gives the fewest networks covering exactly the union (a prefix cover of a
set of addresses is unique once adjacent halves are joined).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

from .parse import Network, parse_entry
from .transfer import DESCRIPTION_LIMIT


@dataclass(frozen=True)
class Listed:
    id: str
    cidr: str
    description: str = ""
    expires_at: int | None = None


@dataclass(frozen=True)
class Merge:
    """One new entry replacing several (or one entry that another covers wholly: `replaces` > 1)."""

    cidr: str
    description: str
    expires_at: int | None
    replaces: tuple[Listed, ...]


@dataclass(frozen=True)
class Simplification:
    merges: tuple[Merge, ...]
    before: int  # entries on the list
    after: int  # entries once the merges are made

    @property
    def remove_ids(self) -> list[str]:
        return [entry.id for merge in self.merges for entry in merge.replaces]


def _description(entries: Sequence[Listed]) -> str:
    seen: list[str] = []
    for entry in entries:
        if entry.description and entry.description not in seen:
            seen.append(entry.description)
    text = "; ".join(seen)
    return text if len(text) <= DESCRIPTION_LIMIT else text[: DESCRIPTION_LIMIT - 1] + "…"


def simplify(entries: Sequence[Listed], now: float) -> Simplification:
    """The merges that make the list as short as it can be without admitting any other address."""
    groups: dict[tuple[int | None, int], list[tuple[Listed, Network]]] = {}
    for entry in entries:
        if entry.expires_at is not None and entry.expires_at <= now:
            continue  # admits nothing now: merged, it would admit again
        network = parse_entry(entry.cidr)
        groups.setdefault((entry.expires_at, network.version), []).append((entry, network))
    merges: list[Merge] = []
    for (expires_at, _), members in groups.items():
        # One version per group, so the networks are all IPv4 or all IPv6, as collapse_addresses needs.
        collapsed: list[Network] = list(ipaddress.collapse_addresses([n for _, n in members]))  # type: ignore[type-var]
        if len(collapsed) == len(members):
            continue  # nothing merges in this group
        for network in collapsed:
            inside = [entry for entry, own in members if own.subnet_of(network)]  # type: ignore[arg-type]
            if len(inside) > 1:
                merges.append(Merge(network.with_prefixlen, _description(inside), expires_at, tuple(inside)))
    removed = sum(len(merge.replaces) for merge in merges)
    return Simplification(tuple(merges), len(entries), len(entries) - removed + len(merges))
