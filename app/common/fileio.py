"""The one way the console and the sandbox replace a file: whole or not at all, and on disk when it returns."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, mode: int = 0o600, make_folder: bool = True) -> None:
    """Write `text` to a temporary file beside `path`, fsync it, rename it over `path`, then fsync the
    directory, so a crash leaves the old file or the new one, never a mix, and a return means durable.
    `mode`: the permissions of a new file (private by default: these files name people's addresses).
    `make_folder`: False for a place a person chose (an export): a missing folder is an error there."""
    if make_folder:
        path.parent.mkdir(parents=True, exist_ok=True)
    # A new file of a name no one else can have chosen (mkstemp opens with O_EXCL, 0600): a fixed name's
    # leftover (0644 from another tool) or a symbolic link planted there would give the file that mode, or
    # send the text to the link's target.
    fd, partial_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    partial = Path(partial_name)
    try:
        if os.name == "posix":
            os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    except BaseException:
        # A full disk or a refused rename: the earlier file stays as it was and no partial one is left.
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable. Windows cannot open a directory: there the rename is already."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the data itself was synced
    finally:
        os.close(fd)
