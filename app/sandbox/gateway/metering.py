"""Who made the request an answer belongs to, for the usage counts (store/usage.py).

The gateway sets the caller's key once it let the request through; a streamed answer and a background run
carry it with them (a task copies the context it was started in), so the route that finishes an answer
counts it on the right key without the key being handed down every call."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from app.sandbox.store.aggregates import Store
from app.sandbox.store.keys import KeyRecord

CALLER: ContextVar[KeyRecord | None] = ContextVar("sandbox_caller", default=None)


def count_answer(store: Store, project_id: str, response: dict[str, Any]) -> None:
    """Count a finished answer's usage on its project, its caller's key and its model (in memory)."""
    usage = response.get("usage")
    if not isinstance(usage, dict):
        return
    caller = CALLER.get()
    org_id = caller.org_id if caller is not None else store.organizations.project_org(project_id) or ""
    key_id = caller.id if caller is not None else ""  # a run resumed after a restart: its key is not known
    model, now = str(response.get("model", "")), store.database.now()
    store.usage.count(org_id, project_id, key_id, model, usage, now)
    total = usage.get("total_tokens")
    if isinstance(total, int):  # the project's tokens-per-minute windows (store/rate_limits.py)
        store.rate_limits.spend(project_id, model, total, now)
