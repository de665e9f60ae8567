"""Pure address rules shared by the sandbox and the console: parse, canonical form, overlap, match."""

from .analysis import (
    Finding,
    Relation,
    admits_every_address,
    covering,
    describe_findings,
    nearest,
    relate,
    warnings_for,
)
from .index import EntryIndex
from .parse import (
    Address,
    EntryError,
    Network,
    canonical,
    canonical_entry,
    parse_address,
    parse_client_ip,
    parse_entry,
    unmapped,
)

__all__ = [
    "Address",
    "EntryError",
    "EntryIndex",
    "Finding",
    "Network",
    "Relation",
    "admits_every_address",
    "canonical",
    "canonical_entry",
    "covering",
    "describe_findings",
    "nearest",
    "parse_address",
    "parse_client_ip",
    "parse_entry",
    "relate",
    "unmapped",
    "warnings_for",
]
