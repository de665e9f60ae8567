"""Usage per minute, hour and day: what each answer used (per project, key and model) and the requests the
gateway refused (per project and reason), counted in memory on the request path and written in batches by
the keeper, never per request (as the hit counts and key use are).

Each flush adds its counts to the minute, the hour and the day bucket at once, so a query over a month
reads the day rows (a few thousand) and never sums millions of minute rows.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.sandbox.store.database import Database

WIDTHS = (60, 3600, 86_400)  # the bucket widths kept: a minute, an hour, a day (UTC)
# Minute buckets are kept 90 days (a query that fine looks at hours, not months); hours and days always.
KEEP_MINUTES_SECONDS = 90 * 86_400
PRUNE_EVERY = 3600  # seconds between two prunings (each deletes a range of each organization's rows)
TOKEN_COLUMNS = ("input_tokens", "input_cached_tokens", "output_tokens", "output_reasoning_tokens")
# What a usage bucket can be grouped by, as the Admin API names it; the same names are the columns.
GROUPS = ("project_id", "api_key_id", "model")

_ADD_USAGE = (
    "INSERT INTO usage_buckets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
    "num_model_requests = num_model_requests + excluded.num_model_requests, "
    + ", ".join(f"{column} = {column} + excluded.{column}" for column in TOKEN_COLUMNS)
)
_ADD_REFUSED = (
    "INSERT INTO refused_buckets VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
    "num_requests = num_requests + excluded.num_requests"
)


def _whole(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class UsageCounts:
    """The usage the gateway and the routes count, and the queries the usage and costs endpoints make."""

    def __init__(self, database: Database) -> None:
        self._database = database
        # (minute, org, project, key id, model) -> [requests, input, cached input, output, reasoning]
        self.counted: dict[tuple[int, str, str, str, str], list[int]] = {}
        # (minute, org, project, reason) -> requests refused
        self.refusals: dict[tuple[int, str, str, str], int] = {}
        self._pruned_at = 0
        # Counting runs on the server's loop, the flush on the keeper's thread: the lock (~0.1 µs) makes the
        # swap exact, so the usage always equals the answers' own (a request is never lost between the two).
        self._lock = threading.Lock()

    def count(
        self, org_id: str, project_id: str, api_key_id: str, model: str, usage: Mapping[str, Any], now: int
    ) -> None:
        """Count one answer and its `usage` object (as the response carries it): a few dict operations."""
        inputs, outputs = usage.get("input_tokens_details"), usage.get("output_tokens_details")
        cached = _whole(inputs.get("cached_tokens")) if isinstance(inputs, Mapping) else 0
        reasoning = _whole(outputs.get("reasoning_tokens")) if isinstance(outputs, Mapping) else 0
        given, made = _whole(usage.get("input_tokens")), _whole(usage.get("output_tokens"))
        key = (now - now % 60, org_id, project_id, api_key_id, model)
        with self._lock:
            row = self.counted.get(key)
            if row is None:
                row = self.counted[key] = [0, 0, 0, 0, 0]
            row[0] += 1
            row[1] += given
            row[2] += cached
            row[3] += made
            row[4] += reasoning

    def refused(self, org_id: str | None, project_id: str | None, reason: str, now: int) -> None:
        """Count one request the gateway refused (`reason`: the error code it answered)."""
        key = (now - now % 60, org_id or "", project_id or "", reason)
        with self._lock:
            self.refusals[key] = self.refusals.get(key, 0) + 1

    async def flush(self) -> int:
        """Write the counts taken so far; how many minute rows it touched."""
        work = self.pending()
        return 0 if work is None else await self._database.write(work)

    def pending(self) -> Callable[[sqlite3.Connection], int] | None:
        """The write of the counts taken so far, or None when nothing was counted.

        The dicts are swapped out under the lock: what was counted is in this write or in the next one."""
        with self._lock:
            if not self.counted and not self.refusals:
                return None
            counted, self.counted = self.counted, {}
            refusals, self.refusals = self.refusals, {}
        usage_rows = [
            (org, width, minute - minute % width, project, key, model, *values)
            for (minute, org, project, key, model), values in counted.items()
            for width in WIDTHS
        ]
        refused_rows = [
            (org, width, minute - minute % width, project, reason, count)
            for (minute, org, project, reason), count in refusals.items()
            for width in WIDTHS
        ]

        def work(db: sqlite3.Connection) -> int:
            db.executemany(_ADD_USAGE, usage_rows)
            db.executemany(_ADD_REFUSED, refused_rows)
            return len(counted) + len(refusals)

        return work

    async def prune(self) -> int:
        """Delete the minute buckets older than KEEP_MINUTES_SECONDS, at most once every PRUNE_EVERY
        seconds; how many rows went. By organization: each delete is a range of the primary key."""
        now = self._database.now()
        if now - self._pruned_at < PRUNE_EVERY:
            return 0
        self._pruned_at = now
        before = now - KEEP_MINUTES_SECONDS

        def work(db: sqlite3.Connection) -> int:
            removed = 0
            for (org_id,) in db.execute("SELECT id FROM orgs").fetchall():
                for table in ("usage_buckets", "refused_buckets"):
                    query = f"DELETE FROM {table} WHERE org_id = ? AND width = 60 AND start < ?"
                    removed += db.execute(query, (org_id, before)).rowcount
            return removed

        return await self._database.write(work)

    def completions(
        self,
        org_id: str,
        width: int,
        start: int,
        end: int,
        group_by: Sequence[str],
        filters: Mapping[str, Sequence[str]],
    ) -> list[dict[str, Any]]:
        """Rows of (start, the grouped columns, the sums) for buckets starting in [start, end), by start."""
        groups = [column for column in GROUPS if column in group_by]
        where, args = _where(org_id, width, start, end, filters)
        sums = ", ".join(f"SUM({column}) AS {column}" for column in ("num_model_requests", *TOKEN_COLUMNS))
        selected = ", ".join(["start", *groups])
        query = (
            f"SELECT {selected}, {sums} FROM usage_buckets WHERE {where} "
            f"GROUP BY {selected} ORDER BY {selected}"
        )
        return self._database.read(lambda db: [dict(row) for row in db.execute(query, args)])

    def refused_requests(
        self, org_id: str, width: int, start: int, end: int, filters: Mapping[str, Sequence[str]]
    ) -> list[dict[str, Any]]:
        """Rows of (start, project_id, reason, num_requests) for buckets starting in [start, end); only the
        project filter applies (a refusal has no model, and often no key)."""
        where, args = _where(org_id, width, start, end, {"project_id": filters.get("project_id", ())})
        query = (
            "SELECT start, project_id, reason, SUM(num_requests) AS num_requests FROM refused_buckets "
            f"WHERE {where} GROUP BY start, project_id, reason ORDER BY start, project_id, reason"
        )
        return self._database.read(lambda db: [dict(row) for row in db.execute(query, args)])


def _where(
    org_id: str, width: int, start: int, end: int, filters: Mapping[str, Sequence[str]]
) -> tuple[str, list[Any]]:
    """The WHERE clause of a query over one organization's buckets of one width, and its arguments."""
    clauses = ["org_id = ?", "width = ?", "start >= ?", "start < ?"]
    args: list[Any] = [org_id, width, start, end]
    for column in GROUPS:  # a fixed set of names: only the values come from the request
        values = filters.get(column)
        if values:
            clauses.append(f"{column} IN ({', '.join('?' for _ in values)})")
            args += values
    return " AND ".join(clauses), args
