"""An exclusive lock between processes, held on a lock file beside what it guards: the window and the command
line both write the settings file, each a read-modify-write of the whole file under this lock, so neither
loses the other's change. The operating system lets go of it when a process dies, so no stale lock is left."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from app.common.private import PRIVATE_FILE


@contextlib.contextmanager
def locked(path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold the lock of `path` (the file `path` + ".lock") for the block; TimeoutError after `timeout` s."""
    lock_path = path.with_name(f"{path.name}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    try:
        _acquire(fd, lock_path, timeout)
        try:
            yield
        finally:
            _release(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _acquire(fd: int, lock_path: Path, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{lock_path} stayed locked for {timeout:.0f} s") from None
                time.sleep(0.01)

    def _release(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _acquire(fd: int, lock_path: Path, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{lock_path} stayed locked for {timeout:.0f} s") from None
                time.sleep(0.005)  # the other holder writes a few kilobytes: milliseconds

    def _release(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
