"""Import and export of a list, without Qt: read and plan a file, write one, send an import's lines.

The AllowlistService calls these and turns their outcome into signals and history records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from app.api.errors import ApiError, Conflict, ErrorCode, StatusError
from app.common.fileio import write_atomically
from app.netrules.transfer import (
    ExportScope,
    FileError,
    ImportPlan,
    PlannedLine,
    export_csv,
    export_json,
    plan_import,
    read_entries,
)

if TYPE_CHECKING:
    from app.api.admin import Allowlists, Entry

# How one line of an import went: its index among the lines sent, added or not, and what happened.
LineReport = Callable[[int, bool, str], None]


class TransferError(Exception):
    """A file could not be read for an import or written for an export; the message says why."""


def default_folder(remembered: str, documents: str) -> Path:
    """The first of the folder used last and the Documents folder that exists, else home."""
    for folder in (remembered, documents):
        if folder and Path(folder).is_absolute() and Path(folder).is_dir():
            return Path(folder)
    return Path.home()


def plan_file(path: Path, entries: Sequence[Entry], limit: int) -> ImportPlan:
    """Read a file and plan its import into a list holding `entries`."""
    try:
        lines = read_entries(path.read_text(encoding="utf-8-sig"), path.name)
    except UnicodeDecodeError:
        raise TransferError(f"Import: {path.name} is not a UTF-8 text file (CSV or JSON).") from None
    except (OSError, FileError) as error:
        raise TransferError(f"Import: {path.name}: {error}") from None
    if not lines:
        raise TransferError(f"Import: {path.name} holds no entries.")
    return plan_import(lines, [asdict(entry) for entry in entries], limit)


def write_file(path: Path, entries: Sequence[Entry], scope: ExportScope) -> int:
    """Write a list to a file (.json: JSON, else CSV); returns how many entries were written."""
    rows = [asdict(entry) for entry in entries]
    text = export_json(rows, scope) if path.suffix.lower() == ".json" else export_csv(rows)
    try:
        write_atomically(path, text, make_folder=False)  # a failed export leaves an earlier file whole
    except OSError as error:
        raise TransferError(f"Export: {error.strerror or error} ({path}).") from None
    except UnicodeEncodeError:  # a description holding half of a surrogate pair, as JSON can spell one
        raise TransferError(
            f"Export: an entry holds text that cannot be written as UTF-8 ({path})."
        ) from None
    return len(rows)


async def send_lines(
    allowlists: Allowlists, lines: Sequence[PlannedLine], project_id: str | None, report: LineReport
) -> tuple[int, int]:
    """Add the lines one by one, reporting each; (added, failed). After an answer every later line would
    meet too (the list is full, the key refused, the service down), the rest is reported unsent."""
    added = failed = 0
    stop_reason = ""
    for index, line in enumerate(lines):
        if stop_reason:
            report(index, False, f"not sent: {stop_reason}")
            failed += 1
            continue
        try:
            await allowlists.add(line.canonical, line.source.description, project_id)
        except Conflict as conflict:
            report(index, False, conflict.message)
            failed += 1
            continue
        except StatusError as error:
            report(index, False, error.message)
            failed += 1
            if error.code == ErrorCode.TOO_MANY_ENTRIES or error.status in (401, 403):
                stop_reason = error.message
            continue
        except ApiError as error:  # down, timed out
            report(index, False, str(error))
            failed += 1
            stop_reason = str(error)
            continue
        report(index, True, "added")
        added += 1
    return added, failed
