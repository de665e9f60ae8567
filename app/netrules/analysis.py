"""What an entry means next to others: duplicates, redundancy, overlap, coverage, and warnings."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from .parse import Address, Network, unmapped

# Ranges that are reachable only inside one network (RFC 1918, shared CGNAT space, unique local IPv6).
# `is_private` is broader: it also holds the documentation ranges, which the sandbox uses to play clients.
PRIVATE_RANGES = tuple(
    ipaddress.ip_network(text)
    for text in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)


class Relation(Enum):
    DUPLICATE = "duplicate"  # the same range
    COVERED_BY = "covered_by"  # the new one adds nothing: an existing entry already holds it
    COVERS = "covers"  # the new one makes existing entries redundant


@dataclass(frozen=True)
class Finding:
    relation: Relation
    other: Network
    other_id: str | None = None

    def describe(self, subject: str) -> str:
        label = f"{self.other}" + (f" ({self.other_id})" if self.other_id else "")
        if self.relation is Relation.DUPLICATE:
            return f"{subject} is already on the list as {label}."
        if self.relation is Relation.COVERED_BY:
            return f"{subject} is already covered by {label}; adding it changes nothing."
        return f"{subject} covers {label}, which becomes redundant."


def relate(new: Network, existing: Iterable[tuple[str | None, Network]]) -> list[Finding]:
    """How `new` relates to each existing (id, network). CIDR ranges overlap only by containment."""
    findings: list[Finding] = []
    for other_id, other in existing:
        if other.version != new.version:
            continue
        if other == new:
            findings.append(Finding(Relation.DUPLICATE, other, other_id))
        # typeshed's subnet_of takes only the network's own class; the versions are equal here
        elif new.subnet_of(other):  # type: ignore[arg-type]
            findings.append(Finding(Relation.COVERED_BY, other, other_id))
        elif other.subnet_of(new):  # type: ignore[arg-type]
            findings.append(Finding(Relation.COVERS, other, other_id))
    return findings


def describe_findings(findings: Sequence[Finding], subject: str, most: int = 5) -> list[str]:
    """One sentence per finding, the first `most` of them, then how many more: a /8 can cover thousands."""
    notes = [finding.describe(subject) for finding in findings[:most]]
    if len(findings) > most:
        notes.append(f"… and {len(findings) - most:,} more entries it relates to.")
    return notes


def covering(address: Address, networks: Sequence[Network]) -> list[int]:
    """Indexes of the networks that contain `address` (a linear pass over integers: fine for a UI)."""
    address = unmapped(address)
    value = int(address)
    hits = []
    for index, network in enumerate(networks):
        if network.version == address.version:
            start = int(network.network_address)
            if start <= value < start + network.num_addresses:
                hits.append(index)
    return hits


def nearest(address: Address, networks: Sequence[Network]) -> int | None:
    """Index of the same-family network whose range lies closest to `address`, or None."""
    value = int(address)
    best: tuple[int, int] | None = None
    for index, network in enumerate(networks):
        if network.version != address.version:
            continue
        start = int(network.network_address)
        end = start + network.num_addresses - 1
        distance = 0 if start <= value <= end else min(abs(value - start), abs(value - end))
        if best is None or distance < best[0]:
            best = (distance, index)
    return None if best is None else best[1]


def admits_every_address(network: Network) -> bool:
    """The entry covers the whole space of its family (0.0.0.0/0 or ::/0): with it the list is off in effect."""
    return network.prefixlen == 0


def warnings_for(network: Network) -> list[str]:
    """Why an entry that parses may still not do what a person wants."""
    if admits_every_address(network):
        return [f"{network} admits every address of its family: with it the list is switched off in effect."]
    address = network.network_address
    notes = []
    if address.is_loopback:
        notes.append("A loopback range: the service never sees a request from it over the Internet.")
    elif address.is_link_local:
        notes.append("A link-local range: such addresses never leave the local network segment.")
    # typeshed's subnet_of takes only the network's own class; the versions are compared first
    elif any(network.version == private.version and network.subnet_of(private) for private in PRIVATE_RANGES):  # type: ignore[arg-type]
        notes.append(
            "A private range: behind NAT the service sees your router's public address, not this one."
        )
    elif address.is_multicast or address.is_reserved or address.is_unspecified:
        notes.append("A reserved or multicast range: no client connects from it.")
    if network.version == 4 and network.prefixlen < 8:
        notes.append(f"{network} is very broad: it holds {network.num_addresses:,} addresses.")
    if network.version == 6 and network.prefixlen < 32:
        notes.append(f"{network} is very broad for IPv6.")
    return notes
