"""`service-console usage`: the organization's token usage and cost from a terminal, a script or CI.

The same environment, profiles, exit codes and `--json` as `service-console allowlist` (app/core/cli);
`--csv` prints one row per bucket and group for a spreadsheet.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from . import run_command
from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.usage import UsageRow

GROUPS = {"project": "project_id", "model": "model", "key": "api_key_id"}
_SPAN = re.compile(r"^(\d{1,5})([mhd])$")
_SECONDS = {"m": 60, "h": 3600, "d": 86_400}
COLUMNS = ("start_time", "project_id", "model", "api_key_id", "requests", "input_tokens", "input_cached_tokens",
           "output_tokens", "output_reasoning_tokens")  # fmt: skip


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console usage",
        description="The organization's token usage and cost, per hour or day, grouped by project, model or "
        "key. Keys come from the profile's keychain entry or from $SERVICE_ADMIN_KEY, never from an argument.",
        epilog="Exit codes: 0 done; 2 usage; 3 authentication or permission; 4 network.",
    )
    made.add_argument("--since", default="7d", help="how far back: 90m, 24h, 7d (default 7d)")
    made.add_argument("--group-by", default="", help="comma-separated: project, model, key")
    made.add_argument("--bucket", choices=("1h", "1d"), help="bucket width (default 1d, 1h below 2 days)")
    made.add_argument("--profile", help="a profile saved in the console (its name or id)")
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    shown = made.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print one JSON object: rows, totals, cost")
    shown.add_argument("--csv", action="store_true", help="print the rows as CSV")
    return made


def span_of(text: str) -> int:
    """Seconds in `--since` (90m, 24h, 7d)."""
    found = _SPAN.match(text)
    if found is None or int(found.group(1)) == 0:
        raise CommandFailed(Exit.USAGE, f"--since takes a number and m, h or d (7d, 24h), not “{text}”.")
    return int(found.group(1)) * _SECONDS[found.group(2)]


def groups_of(text: str) -> tuple[str, ...]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    for name in names:
        if name not in GROUPS:
            raise CommandFailed(Exit.USAGE, f"--group-by takes project, model and key, not “{name}”.")
    return tuple(GROUPS[name] for name in dict.fromkeys(names))


def _day(seconds: int, width: str) -> str:
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.strftime("%Y-%m-%d" if width == "1d" else "%Y-%m-%d %H:00")


def as_csv(rows: list[UsageRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        values = asdict(row)
        writer.writerow(["" if values[name] is None else values[name] for name in COLUMNS])
    return out.getvalue()


async def run(args: argparse.Namespace) -> Outcome:
    from app.api.client import ServiceClient

    from .target import resolve

    span, group_by = span_of(args.since), groups_of(args.group_by)
    width = args.bucket or ("1h" if span < 2 * 86_400 else "1d")
    end = int(time.time()) + 1
    start = end - span
    target = resolve(args.profile, args.home)
    async with ServiceClient(target.settings, target.org_id) as client:
        rows = await client.usage.completions(start, end, width, group_by)
        cost = sum(amount for _, _, amount in await client.usage.costs(start, end))
    totals = {name: sum(getattr(row, name) for row in rows) for name in COLUMNS[4:]}
    lines = [
        f"{_day(row.start_time, width):<16}  "
        + "  ".join(
            f"{getattr(row, name) or '':<24}"
            for name in ("project_id", "model", "api_key_id")
            if name in group_by
        )
        + f"  {row.requests:>8} requests  {row.input_tokens:>10} in ({row.input_cached_tokens} cached)"
        + f"  {row.output_tokens:>10} out ({row.output_reasoning_tokens} reasoning)"
        for row in rows
    ]
    lines.append(
        f"Since {_day(start, '1h')} UTC: {totals['requests']} requests, {totals['input_tokens']} input tokens, "
        f"{totals['output_tokens']} output tokens, ${cost:.4f}."
    )
    data = {
        "start_time": start,
        "end_time": end,
        "bucket_width": width,
        "group_by": list(group_by),
        "rows": [asdict(row) for row in rows],
        "totals": totals,
        "cost_usd": round(cost, 6),
    }
    return Outcome(lines, data)


def main(argv: list[str]) -> int:
    return run_command(argv, parser().parse_args, run, _show_csv)


def _show_csv(args: argparse.Namespace, outcome: Outcome) -> bool:
    """`--csv`: the rows as CSV, instead of the lines."""
    if args.csv:
        print(as_csv([_row(row) for row in outcome.data["rows"]]), end="")
    return bool(args.csv)


def _row(values: dict[str, object]) -> UsageRow:
    from app.api.usage import UsageRow

    return UsageRow(**values)  # type: ignore[arg-type]
