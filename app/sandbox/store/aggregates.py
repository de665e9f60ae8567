"""The sandbox's state in one SQLite file, by aggregate: organizations and projects, keys, allowlists, their
hit counts, keys and their use, the usage of the answers and the projects' rate limits and monthly
budgets, service accounts, the audit log, the mutual TLS certificates, stored responses, conversations and
prompts.

The server and the dashboard each open their own `Store`. Each aggregate has one API: its writes are
coroutines that resolve once the write is on disk (the writer thread commits them, writer.py), its reads
are plain calls on the reading connection (short, and mostly answered from memory).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from app.sandbox.store.allowlist_record import AllowlistRecord
from app.sandbox.store.allowlists import StoredAllowlists
from app.sandbox.store.audit import AuditLog
from app.sandbox.store.budgets import Budgets
from app.sandbox.store.certificates import Certificates
from app.sandbox.store.conversations import StoredConversations
from app.sandbox.store.database import Database
from app.sandbox.store.hit_counts import HitCounts
from app.sandbox.store.key_usage import KeyUsage
from app.sandbox.store.keys import Keys
from app.sandbox.store.organizations import Organizations
from app.sandbox.store.prompts import StoredPrompts
from app.sandbox.store.rate_limits import RateLimits
from app.sandbox.store.responses import StoredResponses
from app.sandbox.store.service_accounts import ServiceAccounts
from app.sandbox.store.traffic import Traffic
from app.sandbox.store.usage import UsageCounts


class Store:
    """One SQLite file's aggregates. Thread-safe."""

    def __init__(
        self,
        path: Path,
        clock: Callable[[], float] = time.time,
        compile_later: Callable[[AllowlistRecord], None] | None = None,
    ) -> None:
        self.database = Database(path, clock)
        self.allowlists = StoredAllowlists(self.database, compile_later)
        self.database.start_writer(self.allowlists)
        self.hit_counts = HitCounts(self.database, self.allowlists)
        self.keys = Keys(self.database)
        self.key_usage = KeyUsage(self.database, self.keys)
        self.service_accounts = ServiceAccounts(self.database, self.keys)
        self.organizations = Organizations(self.database)
        self.audit = AuditLog(self.database)
        self.certificates = Certificates(self.database)
        self.responses = StoredResponses(self.database)
        self.conversations = StoredConversations(self.database)
        self.traffic = Traffic(self.database)
        self.prompts = StoredPrompts(self.database)
        self.usage = UsageCounts(self.database)
        self.rate_limits = RateLimits(self.database)
        self.budgets = Budgets(self.database)

    @property
    def path(self) -> Path:
        return self.database.path

    @property
    def clock(self) -> Callable[[], float]:
        return self.database.clock

    def close(self) -> None:
        # What the gateway counted since the last flush, written before the writer stops.
        for counted in (self.hit_counts.pending(), self.key_usage.pending(), self.usage.pending()):
            if counted is not None:
                self.database.submit(counted).result()
        self.traffic.flush_now()
        self.database.close()
