"""A preloaded parent that forks one real child process per `python -m app ...` / `python -m app.sandbox ...`.

Why it exists: `python -m app allowlist ...` spends ~0.6 CPU-s importing (httpx, the Admin API's models)
before it does anything, the sandbox's dashboard about as much, and the tests make about fifty such calls.
This server imports both command lines once, then forks a child per call. The child is still a separate
process, run as `python -m MODULE` runs it (runpy, as `-m` does): its own argv, environment, working
directory, stdin/stdout/stderr (the caller's files, passed over a Unix socket) and its own exit code (a
`sys.exit`, an argparse usage error, an uncaught exception: 1, as Python's own, or a signal). Nothing is
shared with the caller but the imported modules, none of which reads the environment when imported (the
keychain backend, the console's folders and the SERVICE_* variables are all read when a command runs, in
the child). Long-running servers (`serve`) are still started with subprocess: they are signalled and read
while they run.

The server is single-threaded (forking a threaded process is unsafe: it refuses to serve if what it preloaded
started a thread) and serves one call at a time; each pytest process starts its own. The benches' check
(tests/unit/test_benches.py) forks them from a server of its own, each in a session of its own and ending
as the interpreter ends (threads joined, objects destroyed: a QThread still running aborts it there).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

ROOT = Path(__file__).resolve().parents[1]
# The modules `python -m` may name here, and what they import before they can answer; importing them reads
# no environment.
MODULES = ("app", "app.sandbox")
PRELOAD = (
    "app.__main__",
    "app.sandbox.cli",
    "app.core.cli",
    "app.core.cli.allowlist",
    "app.core.cli.target",
    "app.api.client",
    "keyring",  # its backend is chosen on first use (PYTHON_KEYRING_BACKEND), in the child
)


@dataclass(frozen=True)
class Finished:
    """A child's exit code (negative: killed by that signal, as subprocess says), what it printed, and its
    process id (with `new_session`, its session's id too)."""

    code: int
    out: str
    err: str
    pid: int


class ForkServer:
    """The parent process, started on first use; `run(argv, env, cwd)` forks a child and waits for it.
    `modules`: the packages whose modules `run` may name (`-m` with one of them or a module of theirs)."""

    def __init__(self, preload: tuple[str, ...] = PRELOAD, modules: tuple[str, ...] = MODULES) -> None:
        self._modules = modules
        self._folder = tempfile.TemporaryDirectory(prefix="forkserver-")
        self._address = str(Path(self._folder.name) / "socket")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.fork_server", self._address, *preload],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()  # the server says so once it listens
        if ready.strip() != b"ready":
            self.close()
            raise RuntimeError(f"the fork server did not start: {ready!r}")

    def run(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 60,
        *,
        new_session: bool = False,
        finalize: bool = False,
    ) -> Finished:
        """`python <argv>` in a forked child: argv[0] is `-m`, argv[1] one of the server's `modules`.

        `new_session`: the child in a session of its own, as subprocess's start_new_session (a timeout then
        kills the whole session). `finalize`: it ends as the interpreter ends, non-daemon threads joined and
        every object destroyed; without it, at os._exit once the atexit functions ran, which is quicker."""
        if argv[:1] != ["-m"] or not any(
            argv[1] == name or argv[1].startswith(f"{name}.") for name in self._modules
        ):
            raise ValueError(f"only `-m` with one of {self._modules}: {argv}")
        with (
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection,
            open(os.devnull, "rb") as stdin,
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
        ):
            connection.settimeout(timeout)
            connection.connect(self._address)
            # As subprocess does: the caller's environment and folder unless others are given.
            env = dict(os.environ) if env is None else env
            request = json.dumps(
                {
                    "argv": argv,
                    "env": env,
                    "cwd": str(cwd or Path.cwd()),
                    "session": new_session,
                    "finalize": finalize,
                }
            ).encode()
            socket.send_fds(connection, [request], [stdin.fileno(), out.fileno(), err.fileno()])
            connection.shutdown(socket.SHUT_WR)
            reader = connection.makefile("rb")
            pid = int(reader.readline())
            try:
                status = int(reader.readline())
            except TimeoutError:
                # As subprocess.run's timeout does; the server reaps it.
                (os.killpg if new_session else os.kill)(pid, signal.SIGKILL)
                raise
            out.seek(0)
            err.seek(0)
            return Finished(status, out.read().decode(), err.read().decode(), pid)

    def close(self) -> None:
        self._process.kill()
        self._process.wait()
        assert self._process.stdout is not None
        self._process.stdout.close()
        self._folder.cleanup()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


# The module's globals, as `python -m` keeps them until the interpreter ends (`finalize`).
_RAN: dict[str, object] = {}


def _child(request: dict[str, object], fds: list[int]) -> int:
    """In the forked child: become `python -m MODULE ...` with the caller's files; its exit code."""
    import runpy

    if request.get("session"):
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    env = request["env"]
    argv = request["argv"]
    assert isinstance(env, dict) and isinstance(argv, list)
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # chosen again from TMPDIR, as a new process does, if the parent had asked
    os.chdir(str(request["cwd"]))
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.argv = ["-m", *argv[2:]]  # runpy puts the module's path first, as `-m` does
    code = 1
    try:
        # The preloaded copy of its __main__ module out of the way: `-m` runs that module fresh, and runpy
        # warns (on stderr) when it finds it already imported.
        sys.modules.pop(f"{argv[1]}.__main__", None)
        _RAN.update(runpy.run_module(argv[1], run_name="__main__", alter_sys=True))
        code = 0
    except SystemExit as done:  # sys.exit(main()), argparse's usage errors: the code Python would exit with
        if done.code is None or isinstance(done.code, int):
            code = done.code or 0
        else:
            print(done.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()  # as an uncaught exception would, with exit code 1
    return code


def _quick_exit(code: int) -> None:
    """The child's end without the interpreter's: what atexit holds (logging's flush and the rest) and the
    streams flushed, as the interpreter's own exit does them, then gone."""
    import atexit

    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def serve(address: str, preload: list[str]) -> None:
    """Import `preload`, listen on `address`, and fork a child per connection."""
    import gc
    import importlib

    for module in preload:
        importlib.import_module(module)
    # What is preloaded lives as long as the server: out of the garbage collector's sight, so that a child's
    # collections (and its interpreter's end, with `finalize`) do not walk it, writing to every page it shares
    # with the parent and so copying them all (~0.25 CPU-s of each bench's check).
    gc.freeze()
    threads = os.listdir("/proc/self/task")
    if len(threads) > 1:  # a child forked then would hold locks of threads it does not have
        raise RuntimeError(f"preloading started {len(threads) - 1} thread(s); forking would be unsafe")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(address)
        listener.listen()
        print("ready", flush=True)
        while True:
            connection, _ = listener.accept()
            with connection:
                message, fds, _flags, _ = socket.recv_fds(connection, 1 << 20, 3)
                while chunk := connection.recv(1 << 20):  # a request longer than one read
                    message += chunk
                pid = os.fork()
                if pid == 0:
                    try:
                        listener.close()
                        connection.close()
                        request = json.loads(message)
                        code = _child(request, fds)
                        if not request.get("finalize"):
                            _quick_exit(code)
                    except BaseException:
                        os._exit(70)  # never back into the server's loop, whatever _child raised
                    # The interpreter's own end, out of the loop and the server's function.
                    raise SystemExit(code)
                for fd in fds:
                    os.close(fd)
                connection.sendall(f"{pid}\n".encode())
                _, status = os.waitpid(pid, 0)
                connection.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
