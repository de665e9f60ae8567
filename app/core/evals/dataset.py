"""An eval's dataset: rows of variable values, read from CSV (a header names the columns) or JSONL (one object
a line), or typed in the window. The column `expected`, when there is one, is what graders compare with;
every other column is a variable of the prompt."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

EXPECTED = "expected"


class DatasetError(ValueError):
    """A dataset that cannot be read: the sentence says where."""


@dataclass(frozen=True)
class Row:
    values: dict[str, str]
    expected: str | None = None


@dataclass
class Dataset:
    rows: list[Row] = field(default_factory=list)

    @property
    def variables(self) -> list[str]:
        names: dict[str, None] = {}
        for row in self.rows:
            names.update(dict.fromkeys(row.values))
        return list(names)


def _row(record: dict[str, object], where: str) -> Row:
    values: dict[str, str] = {}
    expected: str | None = None
    for name, value in record.items():
        if value is None:
            continue
        if not isinstance(value, str | int | float | bool):
            raise DatasetError(f"{where}: '{name}' is not text or a number.")
        text = json.dumps(value) if isinstance(value, bool) else str(value)
        if name == EXPECTED:
            expected = text
        else:
            values[str(name)] = text
    return Row(values, expected)


def parse_jsonl(text: str) -> Dataset:
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise DatasetError(f"line {number}: not JSON ({error.msg}).") from None
        if not isinstance(record, dict):
            raise DatasetError(f"line {number}: a row is a JSON object of column names and values.")
        rows.append(_row(record, f"line {number}"))
    return Dataset(rows)


def parse_csv(text: str) -> Dataset:
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames:
        raise DatasetError("The CSV has no header row naming its columns.")
    rows = []
    for record in reader:
        if None in record:
            raise DatasetError(f"line {reader.line_num}: more values than the header has columns.")
        rows.append(
            _row({name: value for name, value in record.items() if value != ""}, f"line {reader.line_num}")
        )
    return Dataset(rows)


def load(path: Path) -> Dataset:
    """A dataset file by its extension: .jsonl (or .json lines) or .csv."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError(f"{path} cannot be read: {error}") from None
    dataset = parse_csv(text) if path.suffix.lower() == ".csv" else parse_jsonl(text)
    if not dataset.rows:
        raise DatasetError(f"{path} holds no rows.")
    return dataset
