"""The Refused view's rows: the refusals the service recorded per source and minute, summed per source and
refusing list (count, first and last seen), newest first; and which sources are newly refused though a list
admitted them before (the status bar says so)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.api.allowlist_changes import RefusedSource

LIST_NAMES = {
    "organization": "the organization's list",
    "project": "the project's list",
    "both": "both lists",
}


@dataclass(frozen=True)
class RefusedRow:
    source_ip: str
    list: str  # "organization", "project" or "both"
    project_id: str | None
    count: int
    first_seen: int
    last_seen: int
    path: str  # the latest path refused

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.source_ip, self.list, self.project_id)

    @property
    def refused_by(self) -> str:
        return LIST_NAMES.get(self.list, self.list)


class RefusedRows:
    """The refusals read so far, page after page (`since` moves on), summed per source and list."""

    def __init__(self) -> None:
        self._minutes: dict[tuple[str, str, str | None, int], RefusedSource] = {}
        self.since = 0  # the `since` of the next page

    def add(self, page: Iterable[RefusedSource]) -> list[RefusedRow]:
        """Take a page in (a minute read again replaces its earlier count); the rows that are new."""
        before = {row.key for row in self.rows()}
        for item in page:
            self._minutes[(item.source_ip, item.list, item.project_id, item.minute)] = item
            self.since = max(self.since, item.last_seen)
        return [row for row in self.rows() if row.key not in before]

    def rows(self) -> list[RefusedRow]:
        summed: dict[tuple[str, str, str | None], RefusedRow] = {}
        for item in self._minutes.values():
            key = (item.source_ip, item.list, item.project_id)
            row = summed.get(key)
            if row is None:
                summed[key] = RefusedRow(*key, item.count, item.first_seen, item.last_seen, item.path)
            else:
                latest = item.path if item.last_seen >= row.last_seen else row.path
                summed[key] = RefusedRow(
                    *key,
                    row.count + item.count,
                    min(row.first_seen, item.first_seen),
                    max(row.last_seen, item.last_seen),
                    latest,
                )
        return sorted(summed.values(), key=lambda row: (-row.last_seen, row.source_ip))
