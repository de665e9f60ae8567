"""`python -m tests.preload_probe ARGS...`: runs `python -m app ARGS...` in this process, then prints, on its
last line of output, the modules that run imported (JSON): forked from the fork server's parent, what its
preload list misses (tests/unit/test_fork_server.py)."""

from __future__ import annotations

import json
import sys

from app.__main__ import main


def imported_by(argv: list[str]) -> list[str]:
    """The modules `python -m app ARGV` imports that this process had not, whatever its exit."""
    before = set(sys.modules)
    try:
        main(argv)
    except SystemExit:
        pass
    return sorted(set(sys.modules) - before)


if __name__ == "__main__":
    print(json.dumps(imported_by(sys.argv[1:])))
