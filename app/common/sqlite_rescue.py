"""A damaged SQLite file (random bytes, a disk fault, a half-copied backup) is found at start, moved aside
with a timestamp and replaced by a fresh one, so the console still works and nothing is thrown away.

Without this, the first statement raises `sqlite3.DatabaseError` deep in start-up: the embedded sandbox
never starts and the conversations fail only when a save does.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

COMPANIONS = ("", "-wal", "-shm", "-journal")  # SQLite's own files beside the store


@dataclass(frozen=True)
class SetAside:
    """A damaged store moved out of the way: where it was, where it is now, what SQLite said of it."""

    original: Path
    moved_to: Path
    problem: str

    def explain(self, what: str, lost: str) -> str:
        """One paragraph for a person: what happened, what it costs, what to do."""
        return (
            f"{what} ({self.original}) was damaged ({self.problem}). It was moved aside to {self.moved_to} "
            f"and a fresh one was started: {lost}. Nothing was deleted: to salvage what is readable, run "
            f"`sqlite3 {self.moved_to} .recover | sqlite3 recovered.sqlite3`, or delete the file once you "
            "no longer need it."
        )


def problem_with(path: Path) -> str | None:
    """What SQLite finds wrong with the file (a quick structural check, ~ms per MB), None when it is sound."""
    try:
        # immutable: read the main file only, write nothing, touch no companion (closing a normal connection
        # may checkpoint or delete a -wal file, which is exactly what must be kept for a salvage).
        db = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    except sqlite3.Error as error:
        return str(error)
    try:
        verdict = db.execute("PRAGMA quick_check(1)").fetchone()
    except sqlite3.DatabaseError as error:
        return str(error)
    finally:
        db.close()
    return None if verdict and verdict[0] == "ok" else str(verdict[0] if verdict else "no answer")


class EarlyCheck:
    """`problem_with(path)` on a thread of its own, begun before the store is needed: SQLite lets go of the
    GIL while it reads the file, so the check (~1 ms per MB: ~25 ms for a thousand saved conversations) runs
    beside the launch's Python work on a second core instead of after it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._problem: str | None = None
        self._thread = threading.Thread(target=self._check, name=f"check {path.name}", daemon=True)
        self._thread.start()

    def _check(self) -> None:
        self._problem = problem_with(self.path)

    def problem(self) -> str | None:
        """The verdict, waiting for the check if it is still reading."""
        self._thread.join()
        return self._problem


_early: dict[Path, EarlyCheck] = {}  # begun by check_early, taken by set_aside_if_damaged


def check_early(path: Path) -> None:
    """Begin checking the store at `path` now; `set_aside_if_damaged(path)` takes the verdict when it comes."""
    if path not in _early and path.is_file() and path.stat().st_size > 0:
        _early[path] = EarlyCheck(path)


def set_aside_if_damaged(path: Path, now: float | None = None) -> SetAside | None:
    """Move a damaged store (and its companions) to `<name>.damaged-<UTC time>`; None when it is sound or absent."""
    early = _early.pop(path, None)
    if not path.is_file() or path.stat().st_size == 0:
        return None
    problem = early.problem() if early is not None else problem_with(path)
    if problem is None:
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    moved_to = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in COMPANIONS:
        source = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            source.replace(moved_to.with_name(moved_to.name + suffix))
    return SetAside(path, moved_to, problem)
