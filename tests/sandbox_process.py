"""A sandbox in its own process (for kill -9 tests and benchmarks): start it, wait for its credentials.

At a bench's tiny size (BENCH_SIZE=tiny, tests/perf/tiny.py: a check that the bench works, not a figure) the
sandbox's process is this one forked rather than a new interpreter, when that is safe (one thread, the
sandbox's command line already imported, as the benches' check preloads it): a new interpreter importing
the sandbox cost ~0.45 CPU-s of each start, a third of some benches' checks. It is still a child process
of its own, in the caller's session, behind a real `subprocess.Popen`, and runs `python -m app.sandbox`.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.perf.tiny import TINY

# A forked sandbox's inherited standard streams, alive until its os._exit: freed, one would write what the
# parent had buffered into the child's output.
_INHERITED: list[object] = []


def spawn_sandbox(
    folder: Path, *extra: str, timeout: float = 30, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """`env` is added to this process's environment for the server."""
    creds_file = folder / "creds.json"
    argv = [
        "-m",
        "app.sandbox",
        "serve",
        "--port",
        "0",
        "--data",
        str(folder / "data"),
        "--credentials-out",
        str(creds_file),
        *extra,
    ]
    environment = {**os.environ, **(env or {})}
    forked = TINY and "app.sandbox.cli" in sys.modules and len(os.listdir("/proc/self/task")) == 1
    process = subprocess.Popen(
        [sys.executable, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
        # The child never gets as far as exec: it runs the sandbox itself and exits (forked_python).
        preexec_fn=forked_python(argv, environment) if forked else None,
        restore_signals=not forked,  # a Python's own: SIGPIPE ignored
    )
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


def forked_python(argv: list[str], env: dict[str, str]) -> Callable[[], None]:
    """What Popen's child runs in place of exec: `python <argv>` (`-m MODULE ...`) in this forked process,
    then its exit. Called in the child, after its standard streams were set and before exec would be."""

    def run() -> None:
        import runpy
        import tempfile
        import threading

        # What this process held stays out of the collector's sight and alive: an object of the parent's
        # freed here could flush a buffer into the child's output or close a descriptor number the child
        # reuses.
        gc.freeze()
        gc.enable()  # Popen turned it off around the fork
        _INHERITED.extend((sys.stdin, sys.stdout, sys.stderr))
        # Each descriptor held points at /dev/null, as exec would have closed it (the parent's pipes and
        # sockets, Popen's own error pipe, whose end tells the parent the child started); the numbers stay
        # taken, so an inherited object closing its own closes nothing of the child's.
        null = os.open(os.devnull, os.O_RDWR)
        for name in os.listdir("/proc/self/fd"):
            if int(name) > 2 and int(name) != null:
                try:
                    os.dup2(null, int(name), inheritable=False)
                except OSError:  # the listing's own descriptor, closed meanwhile
                    pass
        sys.stdin = open(0, closefd=False)  # noqa: SIM115  # for the process's life
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None  # chosen again from TMPDIR, as a new process does
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.default_int_handler if number == signal.SIGINT else signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        import atexit

        atexit._clear()  # the parent's exit functions are not the child's (a temporary folder's removal)
        sys.argv = ["-m", *argv[2:]]
        code = 1
        try:
            sys.modules.pop(f"{argv[1]}.__main__", None)
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as done:
            if done.code is None or isinstance(done.code, int):
                code = done.code or 0
            else:
                print(done.code, file=sys.stderr)
        except BaseException:
            import traceback

            traceback.print_exc()
        try:
            for thread in threading.enumerate():  # as the interpreter's end waits for them
                if thread is not threading.current_thread() and not thread.daemon:
                    thread.join()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)

    return run
