"""A process that says what it is, for the tests of tests/fork_server.py and tests/forked_python.py.

`python -m tests.probe_process [SECONDS] CODE` prints one JSON line (its process and session, arguments,
folder, temporary folder, the PROBE variable, and whether it was forked from a process that had imported
tests.forked_python), waits SECONDS if given, and exits with CODE. A temporary folder it leaves to its
finalizer is removed at its exit, and an object it holds says so on stderr when the interpreter's end
destroys it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time


class Held:
    """Destroyed only by the interpreter's end, which it reports."""

    def __del__(self) -> None:
        os.write(2, b"destroyed at the interpreter's end\n")


HELD = Held()
FOLDERS: list[tempfile.TemporaryDirectory[str]] = []


def main() -> int:
    FOLDERS.append(tempfile.TemporaryDirectory())  # removed by its finalizer at exit
    facts = {
        "pid": os.getpid(),
        "sid": os.getsid(0),
        "argv": sys.argv[1:],
        "cwd": os.getcwd(),
        "tmp": tempfile.gettempdir(),
        "probe": os.environ.get("PROBE"),
        "folder": FOLDERS[0].name,
        "forked": "tests.forked_python" in sys.modules,
    }
    print(json.dumps(facts), flush=True)
    if len(sys.argv) > 2:
        time.sleep(float(sys.argv[1]))
    return int(sys.argv[-1])


if __name__ == "__main__":
    sys.exit(main())
