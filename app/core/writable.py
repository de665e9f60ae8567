"""Whether the console can write where it keeps things, checked before the window is made.

Settings, conversations, the embedded sandbox's store and the log are all written from the first second;
a folder the console cannot write (read-only, on a read-only mount, another user's, or a file in its place)
would fail deep in a widget with no word to the person. Each folder is tried as it will be used: made if
missing, a file created and removed in it, and the stores already there opened for writing.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from app.common.private import private_dir
from app.core.settings import ConsoleFolders

STORES = ("conversations.sqlite3", "sandbox/sandbox.sqlite3")  # under the data folder, when there


def unwritable(folders: ConsoleFolders) -> str | None:
    """A sentence saying which folder or file the console cannot write, why, and what to do; None when it
    can write everything it keeps."""
    places = [("settings", folders.config), ("data", folders.data), ("log", folders.logs)]
    if folders.sandbox_data.exists():
        places.append(("local sandbox's data", folders.sandbox_data))
    for role, folder in places:
        problem = _folder_problem(folder)
        if problem:
            return (
                f"The console cannot write to its {role} folder, {folder}: {problem}. Make it writable "
                "(or remove what is in its place), or start the console with --home FOLDER to keep its "
                "settings, data and log elsewhere."
            )
    for path in [folders.settings_file, *(folders.data / name for name in STORES)]:
        problem = _file_problem(path)
        if problem:
            return (
                f"The console cannot write to {path}: {problem}. Make the file writable, or start the "
                "console with --home FOLDER to keep its settings, data and log elsewhere."
            )
    return None


def _folder_problem(folder: Path) -> str | None:
    try:
        private_dir(folder)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-check-"):
            pass
    except OSError as error:
        return _reason(error)
    return None


def _file_problem(path: Path) -> str | None:
    if not path.is_file():
        return None
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND)  # opened as the stores open it; nothing written
    except OSError as error:
        return _reason(error)
    with contextlib.suppress(OSError):
        os.close(descriptor)
    return None


def _reason(error: OSError) -> str:
    return (error.strerror or str(error)).lower() if error.errno is not None else str(error)
