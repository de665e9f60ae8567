"""What the gateway learned of a request, handed to the routes in `scope["state"]["gateway"]`."""

from __future__ import annotations

from typing import NamedTuple

from app.netrules import Address
from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.keys import KeyRecord


class RequestContext(NamedTuple):
    """What the gateway learned, for the handlers: `scope["state"]["gateway"]`. A NamedTuple: made on every
    request, and a frozen dataclass's __init__ costs three object.__setattr__ calls."""

    source_ip: Address | None
    key: KeyRecord
    allowlists: tuple[AllowlistRecord, ...]
