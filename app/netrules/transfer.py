"""Import and export of allowlist entries (CSV and JSON), and the preview of an import before anything is sent.

The preview says, for each line of the file: its canonical form, whether it is new, a duplicate of an entry
on the list or of an earlier line, rejected (and why), beyond the room left under the entry limit, or left out
by the person; with the overlaps and warnings of `analysis` beside it. Exports date entries in ISO 8601 (UTC).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Literal, NotRequired, TypedDict

from .analysis import Relation, admits_every_address, describe_findings, warnings_for
from .index import EntryIndex
from .parse import EntryError, Network, canonical, parse_entry

DESCRIPTION_LIMIT = 200
ADDRESS_COLUMNS = ("cidr", "address", "ip", "range", "entry", "ip_address")
DESCRIPTION_COLUMNS = ("description", "comment", "note", "name", "label")
EXPORT_COLUMNS = ("cidr", "description", "created_at", "id")


class FileError(ValueError):
    """The file as a whole cannot be read (not CSV or JSON of a known shape)."""


@dataclass(frozen=True)
class SourceLine:
    number: int  # the line in a CSV or text file, the item (from 1) in a JSON array
    text: str
    description: str = ""


class Status(Enum):
    ADD = "add"
    DUPLICATE_OF_ENTRY = "already on the list"
    DUPLICATE_IN_FILE = "repeats an earlier line"
    REJECTED = "rejected"
    OVER_LIMIT = "no room under the limit"
    LEFT_OUT = "left out"

    @property
    def choosable(self) -> bool:
        """Whether the person may tick the line in or out: a rejected line or one already on the list never
        goes, whatever the tick says."""
        return self not in (Status.REJECTED, Status.DUPLICATE_OF_ENTRY)


@dataclass
class PlannedLine:
    source: SourceLine
    status: Status
    canonical: str = ""
    notes: list[str] = field(default_factory=list)
    network: Network | None = None

    @property
    def sendable(self) -> bool:
        return self.status is Status.ADD

    @property
    def admits_all(self) -> bool:
        """The entry covers the whole space of its family (0.0.0.0/0, ::/0): the list is off in effect."""
        return self.network is not None and admits_every_address(self.network)


@dataclass
class ImportPlan:
    lines: list[PlannedLine]
    existing_count: int
    limit: int
    sources: Sequence[SourceLine] = ()
    existing: Sequence[dict[str, Any]] = ()
    left_out: frozenset[int] = frozenset()  # positions in `sources` the person left out

    def leaving_out(self, positions: Collection[int]) -> ImportPlan:
        """The same file planned again with those lines left out: a repeat of a left-out line becomes new,
        and a line that had no room under the limit may find some."""
        return plan_import(self.sources, self.existing, self.limit, positions)

    def count(self, status: Status) -> int:
        return sum(1 for line in self.lines if line.status is status)

    @property
    def to_send(self) -> list[PlannedLine]:
        return [line for line in self.lines if line.sendable]

    @property
    def room_before(self) -> int:
        return max(0, self.limit - self.existing_count)

    @property
    def room_after(self) -> int:
        return self.room_before - len(self.to_send)

    def summary(self) -> str:
        parts = [f"{self.count(Status.ADD):,} to add"]
        for status in (
            Status.DUPLICATE_OF_ENTRY,
            Status.DUPLICATE_IN_FILE,
            Status.REJECTED,
            Status.OVER_LIMIT,
        ):
            if n := self.count(status):
                parts.append(f"{n:,} {status.value}")
        if n := self.count(Status.LEFT_OUT):
            parts.append(f"{n:,} left out by you")
        return (
            ", ".join(parts)
            + f". Room under the limit of {self.limit:,}: {self.room_before:,} now, {self.room_after:,} after."
        )

    def allow_all_warning(self) -> str:
        """Words for the lines to be sent that admit every address; empty when there are none."""
        lines = [line for line in self.lines if line.sendable and line.admits_all]
        if not lines:
            return ""
        named = ", ".join(f"{line.canonical} (line {line.source.number})" for line in lines)
        one = len(lines) == 1
        return (
            f"⚠ Allows every address: {named} {'admits' if one else 'each admit'} every address of "
            f"{'its' if one else 'their'} family. Imported, {'it switches' if one else 'they switch'} the "
            f"list off in effect. Untick {'it' if one else 'them'} to leave {'it' if one else 'them'} out."
        )


# -- reading -----------------------------------------------------------------------------------------


def read_entries(text: str, filename: str = "") -> list[SourceLine]:
    """The entries of a CSV, plain-text (one per line) or JSON file; JSON is told by its first character."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        return []
    if filename.lower().endswith(".json") or stripped[0] in "[{":
        return _read_json(stripped)
    return _read_csv(text.lstrip("\ufeff"))


def _read_json(text: str) -> list[SourceLine]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise FileError(
            f"Not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}."
        ) from None
    items = data.get("entries", data.get("data")) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise FileError(
            'JSON must be an array of entries, or an object with an "entries" array (as exported here).'
        )
    lines = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, str):
            lines.append(SourceLine(number, item))
        elif isinstance(item, dict):
            address = next((item[k] for k in ADDRESS_COLUMNS if k in item), "")
            description = next((item[k] for k in DESCRIPTION_COLUMNS if k in item), "")
            lines.append(SourceLine(number, str(address or ""), str(description or "")))
        else:
            lines.append(SourceLine(number, json.dumps(item)))
    return lines


def _read_csv(text: str) -> list[SourceLine]:
    reader = csv.reader(io.StringIO(text))
    address_column, description_column = 0, 1
    lines = []
    header_seen = False
    for row in reader:
        cells = [cell.strip() for cell in row]
        if not any(cells) or cells[0].startswith("#"):
            continue
        lowered = [cell.lower() for cell in cells]
        if not header_seen and any(name in lowered for name in ADDRESS_COLUMNS):
            header_seen = True
            address_column = next(lowered.index(n) for n in ADDRESS_COLUMNS if n in lowered)
            description_column = next((lowered.index(n) for n in DESCRIPTION_COLUMNS if n in lowered), -1)
            continue
        header_seen = True  # a header may only be the first row
        address = cells[address_column] if address_column < len(cells) else ""
        description = cells[description_column] if 0 <= description_column < len(cells) else ""
        lines.append(SourceLine(reader.line_num, address, description))
    return lines


# -- planning ----------------------------------------------------------------------------------------


def plan_import(
    lines: Sequence[SourceLine],
    existing: Iterable[dict[str, Any]],
    limit: int,
    left_out: Collection[int] = frozenset(),
) -> ImportPlan:
    """What importing `lines` into a list holding `existing` entries would do, before anything is sent;
    the lines at positions in `left_out` are shown but take no part (no room, no duplicates)."""
    existing = list(existing)
    left_out = frozenset(left_out)
    index = EntryIndex.of_entries(existing)  # the list and the lines accepted so far, related without a scan
    seen_in_file: dict[str, int] = {}
    room = max(0, limit - len(existing))
    planned: list[PlannedLine] = []
    for position, source in enumerate(lines):
        if position in left_out:
            line = _plan_line(source, index, len(existing), {})  # read and shown, but not counted as seen
            if line.status.choosable:
                line.status, line.notes = Status.LEFT_OUT, ["Left out: ticked off in the preview."]
            planned.append(line)
            continue
        line = _plan_line(source, index, len(existing), seen_in_file)
        if line.status is Status.ADD:
            assert line.network is not None
            findings = [f for f in index.relate(line.network) if f.relation is not Relation.DUPLICATE]
            related = describe_findings(findings, line.canonical)
            warned = warnings_for(line.network)
            # "Admits every address" first: what it covers on the list matters far less.
            line.notes += warned + related if line.admits_all else related + warned
            if room <= 0:
                line.status = Status.OVER_LIMIT
                line.notes.insert(0, f"The list would hold more than {limit:,} entries.")
            else:
                room -= 1
                index.add(line.network, f"line {source.number}")
        planned.append(line)
    return ImportPlan(planned, len(existing), limit, list(lines), existing, left_out)


def _plan_line(source: SourceLine, index: EntryIndex, existing: int, seen: dict[str, int]) -> PlannedLine:
    """`index` holds the list's entries (serials below `existing`) and then the lines accepted so far."""
    if not source.text.strip():
        return PlannedLine(source, Status.REJECTED, notes=["No address on this line."])
    try:
        network = parse_entry(source.text)
    except EntryError as error:
        notes = [error.message]
        if error.suggestions:
            notes.append("Did you mean " + " or ".join(error.suggestions) + "?")
        return PlannedLine(source, Status.REJECTED, notes=notes)
    text = canonical(network)
    if len(source.description) > DESCRIPTION_LIMIT:
        return PlannedLine(
            source,
            Status.REJECTED,
            text,
            [f"The description is {len(source.description)} characters; at most {DESCRIPTION_LIMIT}."],
        )
    duplicate = index.find(network)
    if duplicate is not None and duplicate < existing:
        return PlannedLine(
            source,
            Status.DUPLICATE_OF_ENTRY,
            text,
            [f"Already on the list as {index.labels[duplicate]}."],
            network,
        )
    if text in seen:
        return PlannedLine(source, Status.DUPLICATE_IN_FILE, text, [f"Same as line {seen[text]}."], network)
    seen[text] = source.number
    return PlannedLine(source, Status.ADD, text, network=network)


# -- writing -----------------------------------------------------------------------------------------


def iso_utc(created_at: Any) -> str | None:
    """A Unix timestamp as ISO 8601 in UTC (2026-11-23T11:35:00Z), which a person and a spreadsheet read;
    text (a date already) is kept, and no date stays none."""
    if created_at is None or created_at == "":
        return None
    if isinstance(created_at, int | float) and not isinstance(created_at, bool):
        return datetime.fromtimestamp(created_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(created_at)


def _exported(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        column: iso_utc(entry.get(column)) if column == "created_at" else entry.get(column)
        for column in EXPORT_COLUMNS
    }


def export_csv(entries: Iterable[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    for entry in entries:
        row = _exported(entry)
        writer.writerow(["" if row[column] is None else row[column] for column in EXPORT_COLUMNS])
    return buffer.getvalue()


class ExportScope(TypedDict):
    """Which list an export holds, written before its entries (the window adds whether the list is on)."""

    scope: Literal["organization", "project"]
    project_id: NotRequired[str | None]
    enabled: NotRequired[bool]


def export_json(entries: Iterable[dict[str, Any]], scope: ExportScope) -> str:
    document = {
        "object": "ip_allowlist.export",
        **scope,
        "entries": [_exported(entry) for entry in entries],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
