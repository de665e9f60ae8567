"""Files only their owner may read: the sandbox's store, the console's conversations, settings, log and exports
name people's prompts, addresses and key hashes, so they are 0600 in 0700 folders on Linux and macOS.

On Windows the per-user install puts them under the user's profile (%APPDATA%, %LOCALAPPDATA%), whose
inherited access list already admits only that user, SYSTEM and Administrators; POSIX modes mean nothing
there, so these helpers change nothing on Windows.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
POSIX = os.name == "posix"


def private_files_from_now_on() -> None:
    """New files and folders of this process start private (umask 077): SQLite's -wal and -shm files and the
    log are created by libraries that take no mode of their own."""
    if POSIX:
        os.umask(0o077)


def private_dir(path: Path) -> Path:
    """Make `path` (and missing parents) and leave it 0700, tightening a folder an older version left 0755.
    Only `path` itself is changed: its parents (the user's ~/.config, say) belong to others."""
    path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    if POSIX:
        with contextlib.suppress(OSError):  # not ours to change (a shared folder given by hand): leave it
            path.chmod(PRIVATE_DIR)
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty if it is missing, 0600, or tighten it to 0600 if it exists (an older version's 0644)."""
    if POSIX:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
        os.close(fd)
        with contextlib.suppress(OSError):
            path.chmod(PRIVATE_FILE)
    return path


def tighten(path: Path) -> None:
    """0600 on an existing file (SQLite's companions of a store an older version made), silently otherwise."""
    if POSIX:
        with contextlib.suppress(OSError):
            path.chmod(PRIVATE_FILE)
