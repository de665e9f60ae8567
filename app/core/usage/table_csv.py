"""The Usage tab's table as CSV (RFC 4180, a header line, US dollars with six decimals), as a person saves it
for a spreadsheet; a group's name that starts like a formula is quoted so a spreadsheet shows it as text."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

from .series import TableRow

HEADER = (
    "group",
    "requests",
    "input_tokens",
    "cached_input_tokens",
    "output_tokens",
    "reasoning_tokens",
    "total_tokens",
    "cost_usd",
    "previous_total_tokens",
    "previous_cost_usd",
)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _text(value: str) -> str:
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def table_csv(rows: Iterable[TableRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(HEADER)
    for row in rows:
        writer.writerow(
            (
                _text(row.group),
                row.requests,
                row.input_tokens,
                row.cached_tokens,
                row.output_tokens,
                row.reasoning_tokens,
                row.tokens,
                f"{row.cost:.6f}",
                row.previous_tokens,
                f"{row.previous_cost:.6f}",
            )
        )
    return out.getvalue()
