"""`python -m MODULE ...` or `python -c CODE` as a child process that is this one forked rather than a new
interpreter, for the benches' checks at their tiny size (tests/unit/test_benches.py).

Why: a bench's check forks the bench from a parent that imported the console, the sandbox and their
libraries (tests/fork_server.py), and the bench starts sandboxes and consoles of its own; a new interpreter
importing them again costs ~0.45 CPU-s a sandbox and ~0.4 a console, more than the rest of some checks. Here
the child is a real `subprocess.Popen` (pid, pipes, signals, wait), in the caller's session, with the given
environment, whose process never gets as far as exec: it runs the command itself and exits with its code.
Forked only where it is safe (a single thread); otherwise, and when not asked to, a new interpreter as ever.

What the child does not do as a new interpreter would: end by destroying every object (it ends at
os._exit, once non-daemon threads are joined and its own atexit functions ran). The console's and the
sandbox's own tests run them as new interpreters.
"""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from typing import IO

from tests.forked_child import exit_code_of, quick_exit

# A forked child's inherited standard streams, alive until its os._exit: freed, one would write what the
# parent had buffered into the child's output.
_INHERITED: list[object] = []


def single_threaded() -> bool:
    """Whether only this thread runs (Linux): a process forked otherwise may hold another thread's locks."""
    return len(os.listdir("/proc/self/task")) == 1


def python(
    argv: list[str],
    *,
    fork: bool,
    env: dict[str, str] | None = None,
    stdout: int | IO[str] | None = None,
    stderr: int | IO[str] | None = None,
) -> subprocess.Popen[str]:
    """`python <argv>` (argv[0] `-m` or `-c`) as a child process, in text mode: this process forked when
    `fork` and single-threaded, else a new interpreter (sys.executable)."""
    if argv[:1] not in (["-m"], ["-c"]):
        raise ValueError(f"only `-m MODULE` or `-c CODE`: {argv}")
    environment = dict(os.environ if env is None else env)
    forked = fork and single_threaded()
    return subprocess.Popen(
        [sys.executable, *argv],
        stdout=stdout,
        stderr=stderr,
        text=True,
        env=environment,
        # The child never gets as far as exec: it runs the command itself and exits (_run_instead_of_exec).
        preexec_fn=_run_instead_of_exec(argv, environment) if forked else None,
        restore_signals=not forked,  # a Python's own: SIGPIPE ignored
    )


def run_python(
    argv: list[str], *, fork: bool, env: dict[str, str] | None = None, timeout: float
) -> subprocess.CompletedProcess[str]:
    """As subprocess.run(capture_output=True, text=True, check=True, timeout=timeout) does, through `python`."""
    with python(argv, fork=fork, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, process.args, out, err)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _run_instead_of_exec(argv: list[str], env: dict[str, str]) -> Callable[[], None]:
    """What Popen's child runs in place of exec: `python <argv>` in this forked process, then its exit.
    Called in the child once its standard streams are set, before exec would be."""

    def run() -> None:
        import atexit
        import runpy
        import tempfile
        import threading
        import weakref

        # What this process held stays out of the collector's sight and alive: an object of the parent's
        # freed here could flush a buffer into the child's output or close a descriptor number it reuses.
        gc.freeze()
        gc.enable()  # Popen turned it off around the fork
        _INHERITED.extend((sys.stdin, sys.stdout, sys.stderr))
        # Each descriptor held points at /dev/null, as exec would have closed it (the parent's pipes and
        # sockets; Popen's own error pipe, whose end tells the parent that the child started); the numbers
        # stay taken, so an inherited object closing its own closes nothing of the child's.
        null = os.open(os.devnull, os.O_RDWR)
        for name in os.listdir("/proc/self/fd"):
            if int(name) > 2 and int(name) != null:
                os.dup2(null, int(name), inheritable=False)
        sys.stdin = open(0, closefd=False)  # noqa: SIM115  # for the process's life
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None  # chosen again from TMPDIR, as a new process does
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for number in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(number, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        # The parent's exit functions and finalizers are not the child's (its temporary folders' removal);
        # the child's own finalizers are registered to run at its exit, as a new interpreter's would be.
        atexit._clear()
        vars(weakref.finalize)["_registry"].clear()
        weakref.finalize._registered_with_atexit = False  # type: ignore[attr-defined]
        if argv[0] == "-c":
            sys.argv = ["-c", *argv[2:]]
            code = exit_code_of(lambda: exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"}))
        else:
            sys.argv = ["-m", *argv[2:]]
            sys.modules.pop(f"{argv[1]}.__main__", None)  # run fresh, as `-m` does
            code = exit_code_of(lambda: runpy.run_module(argv[1], run_name="__main__", alter_sys=True))
        try:
            for thread in threading.enumerate():  # as the interpreter's end waits for them
                if thread is not threading.current_thread() and not thread.daemon:
                    thread.join()
        finally:
            quick_exit(code)

    return run
