"""The allowlist changes made from this console, kept locally: when, profile, scope, what, and the result.

One JSON object per line in the data directory (append-only, so a crash loses at most the line being written);
addresses and descriptions only, never a key. The file is trimmed to the newest MAX_RECORDS on start.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.common.fileio import write_atomically
from app.core.security.history_rows import Change

MAX_RECORDS = 10_000
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChangeRecord:
    at: str  # ISO 8601, UTC
    profile: str
    scope: str  # "Organization" or "Project: name"
    action: Change
    what: str
    result: str  # "ok", or the error as a person reads it

    @property
    def ok(self) -> bool:
        return self.result == "ok"


class ChangeHistory(QObject):
    recorded = Signal(ChangeRecord)

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self._records: list[ChangeRecord] | None = None

    def records(self) -> list[ChangeRecord]:
        """All records, oldest first (read once, then kept in memory)."""
        if self._records is None:
            self._records = self._read()
        return self._records

    def _read(self) -> list[ChangeRecord]:
        records = []
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        except OSError as error:
            log.warning("history unreadable: %s", error)
            return []
        for line in lines:
            try:
                values = json.loads(line)
                records.append(ChangeRecord(**{**values, "action": Change(values["action"])}))
            except (ValueError, TypeError, KeyError):
                # A line cut short by a crash (or a change a newer console names): skip it, keep the rest.
                continue
        if len(records) > MAX_RECORDS:
            records = records[-MAX_RECORDS:]
            self._rewrite(records)
        return records

    def _rewrite(self, records: list[ChangeRecord]) -> None:
        write_atomically(self.path, "".join(json.dumps(asdict(r)) + "\n" for r in records))

    def record(self, profile: str, scope: str, action: Change, what: str, result: str = "ok") -> ChangeRecord:
        entry = ChangeRecord(
            datetime.now(UTC).isoformat(timespec="seconds"), profile, scope, action, what, result
        )
        self.records().append(entry)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as file:
                file.write(json.dumps(asdict(entry)) + "\n")
        except OSError as error:
            log.warning("history not written: %s", error)
        self.recorded.emit(entry)
        return entry

    def clear(self) -> None:
        self._records = []
        self.path.unlink(missing_ok=True)
