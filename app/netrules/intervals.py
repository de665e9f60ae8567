"""Canonical cidrs as the service returns them, read to integers: (version, start, prefix length) each.

A list of 100,000 entries is read on every load, so the whole list is read at once through C-level `map`s
(`str.partition`, `socket.inet_pton`, `int.from_bytes`, `int`): no Python bytecode runs per entry, where an
`ipaddress` network per entry costs ~10 µs, a second for the list. These cidrs are the service's own
canonical output (or the sandbox's records, each checked by `parse_entry` when it was added): `ipaddress`
stays the parser and validator of what people type, and `inet_pton` only reads back what it accepted. A list
with any unreadable cidr is read entry by entry instead, so that only that entry is left out.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import contains, lshift, or_, rshift, sub
from typing import Literal

BITS = {4: 32, 6: 128}
Interval = tuple[int, int, int]  # (version, start, prefix length); start is the block's first address

_FAMILIES = (socket.AF_INET, socket.AF_INET6)  # indexed by "is IPv6"
_VERSIONS = (4, 6)
_BIG: Literal["big"] = "big"
_WIDTHS = (32, 128)
_LENGTHS = {str(length): length for length in range(129)}  # strict: no sign, space or leading zero
_MARKERS = [1 << length for length in range(129)]  # a block key's marker bit per prefix length
# Addresses read this many at a time: a list is read on a worker thread, and one C-level pass holds the GIL
# (the GUI thread's too) for its whole length.
_READ_SLICE = 25_000


def interval_of(cidr: str) -> Interval | None:
    """(version, start, prefix) of a canonical 'address/prefix' (or a bare address), None if it is not one."""
    address, _, prefix = cidr.partition("/")
    family, version = (socket.AF_INET6, 6) if ":" in address else (socket.AF_INET, 4)
    try:
        start = int.from_bytes(socket.inet_pton(family, address), "big")
        length = int(prefix) if prefix else BITS[version]
    except (OSError, ValueError):
        return None
    if not 0 <= length <= BITS[version]:
        return None
    host_bits = BITS[version] - length
    return version, start >> host_bits << host_bits, length


def end_of(interval: Interval) -> int:
    """The block's last address."""
    version, start, prefix = interval
    return start | ((1 << (BITS[version] - prefix)) - 1)


@dataclass(frozen=True)
class Columns:
    """A list's cidrs read to three parallel columns, in list order (no tuple per entry: building 100,000
    of them costs as much as reading the cidrs). An unreadable cidr has prefix length -1."""

    is_v6: list[bool]
    starts: list[int]
    prefixes: list[int]


def read_cidrs(cidrs: Sequence[str]) -> Columns:
    """The columns of canonical cidrs (a cidr that cannot be read gets prefix length -1)."""
    return read_with_blocks(cidrs)[0]


def read_with_blocks(cidrs: Sequence[str]) -> tuple[Columns, list[int]]:
    """`read_cidrs`, and each cidr's block as one int (the index's dictionary key: the network bits under
    a marker bit, 1 << prefix; 0 for an unreadable cidr): made from what reading computes on the way."""
    try:
        return _read_all(cidrs)
    except (OSError, ValueError, KeyError):  # some cidr is not canonical: read each on its own
        intervals = [interval_of(cidr) or (4, 0, -1) for cidr in cidrs]
        blocks = [
            0 if prefix < 0 else start >> (BITS[version] - prefix) | 1 << prefix
            for version, start, prefix in intervals
        ]
        columns = Columns(
            [iv[0] == 6 for iv in intervals], [iv[1] for iv in intervals], [iv[2] for iv in intervals]
        )
        return columns, blocks


def _read_all(cidrs: Sequence[str]) -> tuple[Columns, list[int]]:
    """Every cidr at once; raises ValueError, KeyError or OSError when any one is not 'address/prefix'."""
    if not cidrs:
        return Columns([], [], []), []
    joined = "/".join(cidrs)
    # One "/" in each: in every one, and as many as cidrs in all (a third of the time of counting each).
    if joined.count("/") != 2 * len(cidrs) - 1 or not all(map(contains, cidrs, repeat("/"))):
        raise ValueError("a cidr without its prefix length, or with two")
    pieces = joined.split("/")  # address, prefix, address, prefix, ...
    addresses = pieces[::2]
    is_v6 = list(map(contains, addresses, repeat(":")))
    families = list(map(_FAMILIES.__getitem__, is_v6))
    starts: list[int] = []
    for at in range(0, len(addresses), _READ_SLICE):  # the longest step: a GIL hold of ~25 ms in one piece
        read = map(socket.inet_pton, families[at : at + _READ_SLICE], addresses[at : at + _READ_SLICE])
        starts += map(int.from_bytes, read, repeat(_BIG))
    prefixes = list(map(_LENGTHS.__getitem__, pieces[1::2]))  # KeyError unless "0" to "128"
    host_bits = list(map(sub, map(_WIDTHS.__getitem__, is_v6), prefixes))
    if min(host_bits) < 0:
        raise ValueError("a prefix length out of range")
    networks = list(map(rshift, starts, host_bits))
    starts = list(map(lshift, networks, host_bits))  # host bits zero, as the service writes them
    return Columns(is_v6, starts, prefixes), list(map(or_, networks, map(_MARKERS.__getitem__, prefixes)))
