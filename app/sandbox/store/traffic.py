"""Who the allowlists refused and whom they admitted, per source address: counted in memory by the gateway,
written in batches (as the hit counts are, never a write per request), bounded, and kept as long as stored
responses are (`keep_responses_days`).

- Refusals, per (organization, project, the list that refused, source address, minute): how many, the
  first and last second, the last path. `GET .../ip_allowlist/refused` pages through them.
- Admissions, per (list, source address, day): how many and the last second. A plan's dry run reads them
  to say whom an entry it removes admitted lately (`GET .../ip_allowlist/sources`).

Counting takes no lock: one dict operation under the GIL, and the flush swaps the dicts for empty ones
before it reads them. Past `MAX_PENDING` keys between two flushes new keys are dropped (counted in
`dropped`), so a flood of spoofed sources costs bounded memory; the tables hold at most `MAX_ROWS` rows each.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.sandbox.store.database import Database

MAX_PENDING = 20_000  # keys counted between two flushes, per kind
MAX_ROWS = 200_000  # rows kept per table; the oldest go first
DAY = 86_400
PRUNE_EVERY = 3600  # seconds between flushes that look for rows past retention when nothing was counted


RefusalKey = tuple[str, str, str, str, int]  # org, project ("" for none), list, source, minute
AdmissionKey = tuple[str, str, str, int]  # scope, owner, source, day


@dataclass
class Refusal:
    count: int
    first_seen: int
    last_seen: int
    path: str


class Traffic:
    """The store's refusals and admissions per source (tables made by schema.py)."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._refused: dict[RefusalKey, Refusal] = {}
        self._admitted: dict[AdmissionKey, list[int]] = {}  # [hits, last second]
        self.dropped = 0  # keys not counted because memory was full
        self.keep_days: float | None = 30.0  # set from the sandbox's retention setting
        self._pruned_at = 0  # the last flush that dropped what is past retention

    # -- counting (the gateway, on every request it refuses or admits) ------------------------------

    def refused(
        self, org_id: str, project_id: str | None, which: str, source: str, path: str, now: int
    ) -> None:
        key = (org_id, project_id or "", which, source, now - now % 60)
        refusal = self._refused.get(key)
        if refusal is not None:
            refusal.count += 1
            refusal.last_seen, refusal.path = now, path[:200]
        elif len(self._refused) < MAX_PENDING:
            self._refused[key] = Refusal(1, now, now, path[:200])
        else:
            self.dropped += 1

    def admitted(self, scope: str, owner_id: str, source: str, now: int) -> None:
        key = (scope, owner_id, source, now - now % DAY)
        counted = self._admitted.get(key)
        if counted is not None:
            counted[0] += 1
            counted[1] = now
        elif len(self._admitted) < MAX_PENDING:
            self._admitted[key] = [1, now]
        else:
            self.dropped += 1

    # -- writing ------------------------------------------------------------------------------------

    async def flush(self) -> int:
        """Write what was counted since the last flush and drop what is past retention; rows written."""
        work = self._pending()
        return 0 if work is None else int(await self._database.write(work))

    def flush_now(self) -> None:
        """The same, waited for from a thread with no loop (the store closing)."""
        work = self._pending()
        if work is not None:
            self._database.submit(work).result()

    def _pending(self) -> Callable[[sqlite3.Connection], int] | None:
        refused, self._refused = self._refused, {}
        admitted, self._admitted = self._admitted, {}
        keep_days = self.keep_days
        now = self._database.now()

        def work(db: sqlite3.Connection) -> int:
            db.executemany(
                "INSERT INTO refused VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                "count = count + excluded.count, last_seen = MAX(last_seen, excluded.last_seen), path = excluded.path",
                [(*key, r.count, r.first_seen, r.last_seen, r.path) for key, r in refused.items()],
            )
            db.executemany(
                "INSERT INTO admitted VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                "hits = hits + excluded.hits, last_seen = MAX(last_seen, excluded.last_seen)",
                [(*key, hits, last) for key, (hits, last) in admitted.items()],
            )
            if keep_days is not None:
                cutoff = now - int(keep_days * DAY)
                db.execute("DELETE FROM refused WHERE last_seen < ?", (cutoff,))
                db.execute("DELETE FROM admitted WHERE day < ?", (cutoff - cutoff % DAY,))
            for table, age in (("refused", "last_seen"), ("admitted", "day")):
                db.execute(
                    f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} ORDER BY {age} DESC "
                    f"LIMIT -1 OFFSET {MAX_ROWS})"
                )
            return len(refused) + len(admitted)

        if not refused and not admitted and (keep_days is None or now - self._pruned_at < PRUNE_EVERY):
            return None
        self._pruned_at = now
        return work

    # -- reading (the Admin API), with what is counted but not yet written ---------------------------

    def refusals(
        self, org_id: str, project_id: str | None, since: int, limit: int
    ) -> tuple[list[dict[str, Any]], bool]:
        """Refusals whose last second is at or after `since`, oldest first; and whether more follow."""
        where, args = "org_id = ? AND last_seen >= ?", [org_id, since]
        if project_id is not None:
            where += " AND project_id = ?"
            args.append(project_id)
        rows = self._database.read(
            lambda db: db.execute(
                f"SELECT * FROM refused WHERE {where} ORDER BY last_seen, source_ip LIMIT ?",
                (*args, limit + 1),
            ).fetchall()
        )
        merged: dict[RefusalKey, Refusal] = {
            (r["org_id"], r["project_id"], r["list"], r["source_ip"], r["minute"]): Refusal(
                r["count"], r["first_seen"], r["last_seen"], r["path"]
            )
            for r in rows
        }
        more = len(rows) > limit
        for key, pending in list(self._refused.items()):
            if (
                key[0] != org_id
                or (project_id is not None and key[1] != project_id)
                or pending.last_seen < since
            ):
                continue
            stored = merged.get(key)
            if stored is None:
                merged[key] = Refusal(pending.count, pending.first_seen, pending.last_seen, pending.path)
            else:
                stored.count += pending.count
                stored.last_seen, stored.path = max(stored.last_seen, pending.last_seen), pending.path
        ordered = sorted(merged.items(), key=lambda item: (item[1].last_seen, item[0][3]))
        more = more or len(ordered) > limit
        return [_refusal_json(key, value) for key, value in ordered[:limit]], more

    def sources(self, scope: str, owner_id: str, since: int) -> list[dict[str, Any]]:
        """The source addresses a list admitted since `since` (whole days), busiest first."""
        rows = self._database.read(
            lambda db: db.execute(
                "SELECT source_ip, SUM(hits) AS hits, MAX(last_seen) AS last_seen FROM admitted "
                "WHERE scope = ? AND owner_id = ? AND day >= ? GROUP BY source_ip",
                (scope, owner_id, since - since % DAY),
            ).fetchall()
        )
        totals = {row["source_ip"]: [row["hits"], row["last_seen"]] for row in rows}
        for (kind, owner, source, day), (hits, last) in list(self._admitted.items()):
            if kind == scope and owner == owner_id and day >= since - since % DAY:
                total = totals.setdefault(source, [0, 0])
                total[0] += hits
                total[1] = max(total[1], last)
        ranked = sorted(totals.items(), key=lambda item: (-item[1][0], item[0]))
        return [{"source_ip": source, "hits": hits, "last_seen": last} for source, (hits, last) in ranked]


def _refusal_json(key: RefusalKey, refusal: Refusal) -> dict[str, Any]:
    _, project_id, which, source, minute = key
    return {
        "object": "ip_allowlist.refusal",
        "source_ip": source,
        "list": which,
        "project_id": project_id or None,
        "minute": minute,
        "count": refusal.count,
        "first_seen": refusal.first_seen,
        "last_seen": refusal.last_seen,
        "path": refusal.path,
    }
