"""Which source addresses a list as planned would refuse: the dry run's question about the sources an
entry admitted lately (app/core/cli/policy_evidence.py and the window's evidence before a removal)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.netrules import EntryError, EntryIndex, parse_address, parse_entry, unmapped

Listed = tuple[str, int | None]  # (cidr, expires_at)


def admitting(entries: Iterable[Listed], now: float) -> EntryIndex:
    """An index of the entries still in force at `now`."""
    cidrs = [cidr for cidr, expires_at in entries if expires_at is None or expires_at > now]
    return EntryIndex.of_cidrs(cidrs, cidrs)


def refused_after(sources: Sequence[str], enabled: bool, entries: Iterable[Listed], now: float) -> set[str]:
    """The sources (as the service spells them) that a list, on `enabled` with `entries`, would refuse."""
    if not enabled:
        return set()
    index = admitting(entries, now)
    refused = set()
    for source in sources:
        try:
            address = unmapped(parse_address(source))
        except EntryError:
            refused.add(source)  # "unknown": refused wherever a list is on
            continue
        if not index.contains(address):
            refused.add(source)
    return refused


def within(sources: Iterable[str], cidr: str) -> list[str]:
    """The sources that fall in `cidr` (in the order given)."""
    network = parse_entry(cidr)
    inside = []
    for source in sources:
        try:
            address = unmapped(parse_address(source))
        except EntryError:
            continue
        if address.version == network.version and address in network:
            inside.append(source)
    return inside
