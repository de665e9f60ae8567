"""The projects' rate limits at the gateway (store/rate_limits.py): which model a request names, the
x-ratelimit-* headers of the tightest limit, and the 429 the official clients' retry reads (`retry-after`
and `retry-after-ms`, the seconds until the window ends)."""

from __future__ import annotations

import json
import math

from app.sandbox.errors import error_bytes
from app.sandbox.store.aggregates import Store
from app.sandbox.store.budgets import Budgets
from app.sandbox.store.keys import KeyRecord
from app.sandbox.store.rate_limits import Verdict

Headers = list[tuple[bytes, bytes]]


def model_of(path: str, body: bytes) -> str:
    """The model a request's JSON body names ("" for none, or a body that is not JSON: the route says why)."""
    if path != "/v1/responses" or not body.lstrip().startswith(b"{"):
        return ""
    try:
        model = json.loads(body).get("model")
    except (ValueError, RecursionError):
        return ""
    return model if isinstance(model, str) else ""


def _seconds(reset: float) -> bytes:
    return f"{max(1, math.ceil(reset))}s".encode()


def limit_headers(verdict: Verdict, key_headers: Headers, key_remaining: int) -> Headers:
    """The requests headers of the key's limit or the project's, whichever has fewer left; the tokens
    headers when the project counts tokens."""
    headers = key_headers
    if verdict.requests is not None and verdict.requests[1] <= key_remaining:
        most, left = verdict.requests
        headers = [
            (b"x-ratelimit-limit-requests", str(most).encode()),
            (b"x-ratelimit-remaining-requests", str(left).encode()),
            (b"x-ratelimit-reset-requests", _seconds(verdict.reset)),
        ]
    if verdict.tokens is not None:
        most, left = verdict.tokens
        headers = [
            *headers,
            (b"x-ratelimit-limit-tokens", str(most).encode()),
            (b"x-ratelimit-remaining-tokens", str(left).encode()),
            (b"x-ratelimit-reset-tokens", _seconds(verdict.reset)),
        ]
    return headers


def hold(
    store: Store, key: KeyRecord, path: str, body: bytes, key_remaining: int, key_headers: Headers, now: int
) -> tuple[Headers, bytes | None]:
    """Hold a request of a project with limits of its own to them: (the x-ratelimit-* headers to send, the
    429 body when a limit refuses it, else None)."""
    assert key.project_id is not None
    verdict = store.rate_limits.take(key.project_id, model_of(path, body), store.clock())
    if verdict is None:
        return key_headers, None
    headers = limit_headers(verdict, key_headers, key_remaining)
    if verdict.allowed:
        return headers, None
    store.usage.refused(key.org_id, key.project_id, "rate_limit_exceeded", now)
    refused, retry = refusal(verdict)
    return [*headers, *retry], refused


def stopped(budgets: Budgets, key: KeyRecord) -> bool:
    """Whether a hard budget stopped the key's project (or its organization)."""
    return key.project_id in budgets.stopped_projects or key.org_id in budgets.stopped_orgs


def refusal(verdict: Verdict) -> tuple[bytes, Headers]:
    """The 429 body of a request over a project's limit, and its retry headers."""
    limit = verdict.limit
    most = verdict.requests if verdict.which == "requests" else verdict.tokens
    assert most is not None
    wait = max(1, math.ceil(verdict.reset))
    unit = "requests per min (RPM)" if verdict.which == "requests" else "tokens per min (TPM)"
    scope = f"for {limit.model} " if limit.model else ""
    message = (
        f"Rate limit reached {scope}in project {limit.project_id} on {unit}: Limit {most[0]}, "
        f"Used {most[0] - most[1]}. Please try again in {wait}s."
    )
    retry = [
        (b"retry-after", str(wait).encode()),
        (b"retry-after-ms", str(math.ceil(verdict.reset * 1000)).encode()),
    ]
    return error_bytes(429, message, "rate_limit_exceeded"), retry


# A project a hard budget stopped (store/budgets.py): the hosted service's answer to a spent quota, and no
# retry (the official clients retry a 429 unless told not to; waiting will not help before an admin acts).
QUOTA_REFUSAL = error_bytes(
    429,
    "You exceeded your current quota: this project reached its monthly budget, which an admin set as a "
    "hard limit. An organization admin can raise the budget in the Usage tab.",
    "insufficient_quota",
)
NO_RETRY = [(b"x-should-retry", b"false")]
