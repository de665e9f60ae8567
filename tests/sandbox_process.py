"""A sandbox in its own process (for kill -9 tests and benchmarks): start it, wait for its credentials.

At a bench's tiny size (BENCH_SIZE=tiny, tests/perf/tiny.py: a check that the bench works, not a figure) the
sandbox's process is this one forked rather than a new interpreter, where that is safe (tests/forked_python.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any, Protocol, overload

from tests.fork_server import ForkServer, Spawned
from tests.forked_python import python
from tests.perf.tiny import TINY


class ServerProcess(Protocol):
    """What the tests do with a server's process: subprocess.Popen, or a child of the fork server."""

    pid: int
    stdout: IO[str] | None
    returncode: int | None

    def send_signal(self, number: int) -> None: ...
    def terminate(self) -> None: ...
    def kill(self) -> None: ...
    def poll(self) -> int | None: ...
    def wait(self, timeout: float | None = None) -> int: ...


@overload
def spawn_sandbox(
    folder: Path, *extra: str, timeout: float = 30, env: dict[str, str] | None = None, forks: None = None
) -> tuple[subprocess.Popen[str], dict[str, Any]]: ...
@overload
def spawn_sandbox(
    folder: Path, *extra: str, timeout: float = 30, env: dict[str, str] | None = None, forks: ForkServer
) -> tuple[Spawned, dict[str, Any]]: ...
def spawn_sandbox(
    folder: Path,
    *extra: str,
    timeout: float = 30,
    env: dict[str, str] | None = None,
    forks: ForkServer | None = None,
) -> tuple[ServerProcess, dict[str, Any]]:
    """`env` is added to this process's environment for the server. With `forks` (the tests' python_m) the
    server is a child forked from that preloaded parent, a tenth of a fresh interpreter's start-up; without
    (a bench), a new interpreter, or this process forked at the tiny size (above)."""
    creds_file = folder / "creds.json"
    argv = ["-m", "app.sandbox", "serve", "--port", "0", "--data", str(folder / "data")]
    argv += ["--credentials-out", str(creds_file), *extra]
    environment = {**os.environ, **(env or {})}
    process: ServerProcess
    if forks is not None:
        process = forks.spawn(argv, env=environment)
    else:
        # Tiny: this process forked when it already holds the sandbox (as the benches' check preloads it).
        fork = TINY and "app.sandbox.cli" in sys.modules
        process = python(argv, fork=fork, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    line = process.stdout.readline() if process.stdout else ""
    if "listening at" not in line:
        process.kill()
        raise RuntimeError(f"the sandbox did not start: {line}")
    deadline = time.monotonic() + timeout
    while not (creds_file.exists() and creds_file.stat().st_size):
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("the sandbox wrote no credentials")
        time.sleep(0.02)
    return process, json.loads(creds_file.read_text())
