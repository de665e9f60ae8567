"""A preloaded parent that forks one real child process per `python -m app ...` / `python -m app.sandbox ...`.

Why it exists: `python -m app allowlist ...` spends ~0.6 CPU-s importing (httpx, the Admin API's models)
before it does anything, the sandbox's dashboard about as much, and the tests make about fifty such calls.
This server imports both command lines once, then forks a child per call. The child is still a separate
process, run as `python -m MODULE` runs it (runpy, as `-m` does): its own argv, environment, working
directory, stdin/stdout/stderr (the caller's files, passed over a Unix socket) and its own exit code (a
`sys.exit`, an argparse usage error, an uncaught exception: 1, as Python's own, or a signal). Nothing is
shared with the caller but the imported modules, none of which reads the environment when imported (the
keychain backend, the console's folders and the SERVICE_* variables are all read when a command runs, in
the child). A long-running server (`serve`) is started the same way with `spawn`, which answers at once
with a handle that works as subprocess.Popen's does for what the tests do with one (read its output while it
runs, signal it, kill -9 it, wait for its exit status): forked, a sandbox starts for ~0.05 CPU-s instead of
~0.5.

The server is single-threaded (forking a threaded process is unsafe: it refuses to serve if what it preloaded
started a thread): it forks a child per call as the call comes, and answers each call's exit status when it
reaps that child. The xdist workers of one run share one (`ForkServer.shared`). This module is the callers'
side; the server's is tests/fork_parent.py, the child's tests/forked_child.py. The benches' check (tests/unit/test_benches.py) forks
them from a server of its own, each in a session of its own and ending as the interpreter ends (threads
joined, objects destroyed: a QThread still running aborts it there).
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
# The modules `python -m` may name here (and tests.preload_probe, which runs `python -m app ...` and says what
# that imported), and what they import before they can answer; importing them reads no environment.
MODULES = ("app", "app.sandbox", "tests.preload_probe")
PRELOAD = (
    "app.__main__",
    "app.sandbox.cli",
    "app.core.cli",
    "app.core.cli.allowlist",
    "app.core.cli.target",
    "app.api.client",
    # What a command's first request imports (httpx's transport loads httpcore and, on the event loop,
    # anyio's asyncio backend): ~40 ms of each such child's ~55 otherwise.
    "httpcore",
    "anyio._backends._asyncio",
    "keyring",  # its backend is chosen on first use (PYTHON_KEYRING_BACKEND), in the child
    # `module:function`: called once imported. The shared default SSL context (its CAs parsed, ~20 ms) is
    # inherited by every child whose SSL_CERT_FILE and SSL_CERT_DIR are the parent's; another child makes
    # its own, as the process would.
    "app.api.connection:default_ssl_context",
)
# The official `openai` client, for the "Get code" snippets run as written (`python FILE`): a snippet's own
# `import openai` finds it imported, as the client's resources it reaches (`openai.resources.responses` is a
# package that loads its modules when first reached: the Responses resource is named) and its transport's
# (httpx2 loads httpcore2, anyio's asyncio backend on the event loop, the IDNA codec for the host name),
# ~0.1 CPU-s of a snippet's ~0.23 otherwise. What the package reads from the environment when imported: a
# snippet whose environment differs there is refused (ForkServer.run).
OPENAI_PRELOAD = (
    "openai",
    "openai.resources.responses.responses",
    "httpcore2",
    "anyio._backends._asyncio",
    "encodings.idna",
)
OPENAI_READ_ON_IMPORT = ("OPENAI_LOG", "OPENAI_API_TYPE", "OPENAI_API_VERSION", "AZURE_OPENAI_ENDPOINT")


@dataclass(frozen=True)
class Finished:
    """A child's exit code (negative: killed by that signal, as subprocess says), what it printed, and its
    process id (with `new_session`, its session's id too)."""

    code: int
    out: str
    err: str
    pid: int

    # As subprocess.CompletedProcess names them, for the tests that ran a new interpreter before.
    @property
    def returncode(self) -> int:
        return self.code

    @property
    def stdout(self) -> str:
        return self.out

    @property
    def stderr(self) -> str:
        return self.err


class ForkServer:
    """The parent process, started on first use; `run(argv, env, cwd)` forks a child and waits for it.
    `modules`: the packages whose modules `run` may name (`-m` with one of them or a module of theirs);
    `scripts`: whether it may also run a script file (`python FILE ...`, argv[0] the file).
    `read_on_import`: environment variables that what it preloads read when imported; a child asked for
    with other values there is refused, since it would start from the parent's."""

    def __init__(
        self,
        preload: tuple[str, ...] = PRELOAD,
        modules: tuple[str, ...] = MODULES,
        *,
        scripts: bool = False,
        read_on_import: tuple[str, ...] = (),
        owner: int | None = None,
        address: str | None = None,
    ) -> None:
        self._modules = modules
        self._scripts = scripts
        self._folder = None if address else tempfile.TemporaryDirectory(prefix="forkserver-")
        self._address = address or str(Path(self._folder.name if self._folder else "") / "socket")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self._imported_with = {name: env.get(name) for name in read_on_import}
        ends_with = ["--owner", str(owner)] if owner is not None else []
        self._shared = False
        # A shared server outlives its starter: its errors go to a file beside its socket, not to the starter's
        # stderr (a pipe its reader would wait on till the server's end).
        with open(f"{self._address}.log" if owner is not None else os.devnull, "ab") as log:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "tests.fork_server", *ends_with, self._address, *preload],
                cwd=ROOT,
                env=env,
                stdin=subprocess.PIPE,  # its end of file tells the server to end, with every child it forked
                stdout=subprocess.PIPE,
                stderr=log if owner is not None else None,
            )
        assert self._process.stdout is not None
        ready = self._process.stdout.readline()  # the server says so once it listens
        if ready.strip() != b"ready":
            self.close()
            raise RuntimeError(f"the fork server did not start: {ready!r}")
        if owner is not None:  # the process started has left the server running on its own (serve), and exits
            self._process.wait()
            self._process.stdin.close()  # type: ignore[union-attr]  # a pipe, as asked
            self._process.stdout.close()
            self._shared = True

    @classmethod
    def shared(
        cls, folder: Path, owner: int, preload: tuple[str, ...] = PRELOAD, modules: tuple[str, ...] = MODULES
    ) -> ForkServer:
        """One server for every process that names `folder` (xdist's workers of one run: the folder above
        their own temporary folders), started by the first: each worker starting its own cost ~0.8 CPU-s.
        It ends when the process `owner` ends (xdist's controller, which outlives its workers), killing the
        children still running; `close` leaves it running."""
        folder.mkdir(parents=True, exist_ok=True)
        address = folder / "fork-server.socket"
        with open(folder / "fork-server.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one starts it; the others wait, then find it
            if address.exists():
                # A connection that sends nothing is dropped by the server: no child.
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                    listening = probe.connect_ex(str(address)) == 0
                if not listening:  # a server that ended (its owner did): start another
                    address.unlink()
                else:
                    joined = cls.__new__(cls)
                    joined._modules, joined._scripts, joined._folder = modules, False, None
                    joined._address, joined._imported_with, joined._shared = str(address), {}, True
                    return joined
            return cls(preload, modules, owner=owner, address=str(address))

    def run(
        self,
        argv: list[str],
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 60,
        *,
        new_session: bool = False,
        finalize: bool = False,
        stdin: int | None = None,
        umask: int | None = None,
    ) -> Finished:
        """`python <argv>` in a forked child: argv[0] is `-m`, argv[1] one of the server's `modules` (or,
        with `scripts`, argv[0] a script file).

        `new_session`: the child in a session of its own, as subprocess's start_new_session (a timeout then
        kills the whole session). `finalize`: it ends as the interpreter ends, non-daemon threads joined and
        every object it made destroyed (tests/forked_end.py); without it, at os._exit once the atexit
        functions ran, which is quicker.
        `stdin`: a descriptor of the caller's for the child's stdin (0: the caller's own, as a
        subprocess.run without `stdin` gives it); /dev/null when not given. `umask`: the child's; the
        caller's own when not given, as a child process inherits it."""
        with (
            open(os.devnull, "rb") as null,
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
        ):
            options: dict[str, object] = {
                "session": new_session,
                "finalize": finalize,
                "umask": _umask(umask),
            }
            source = null.fileno() if stdin is None else stdin
            connection, pid = self._fork(argv, env, cwd, [source, out.fileno(), err.fileno()], options)
            with connection:
                connection.settimeout(timeout)
                try:
                    status = int(connection.makefile("rb").readline())
                except TimeoutError:
                    # As subprocess.run's timeout does; the server reaps it.
                    (os.killpg if new_session else os.kill)(pid, signal.SIGKILL)
                    raise
            out.seek(0)
            err.seek(0)
            return Finished(status, out.read().decode(), err.read().decode(), pid)

    def spawn(self, argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Spawned:
        """`python <argv>` in a forked child that runs on: its stdout and stderr together in a pipe read
        through the handle, as `Popen(..., stdout=PIPE, stderr=STDOUT, text=True)` gives them."""
        read_end, write_end = os.pipe()
        try:
            with open(os.devnull, "rb") as stdin:
                fds = [stdin.fileno(), write_end, write_end]
                connection, pid = self._fork(argv, env, cwd, fds, {"umask": _umask(None)})
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)  # the child's copy alone keeps it open: its exit ends the reader's stream
        return Spawned(pid, connection, os.fdopen(read_end, "r"))

    def _fork(
        self,
        argv: list[str],
        env: dict[str, str] | None,
        cwd: Path | None,
        fds: list[int],
        options: dict[str, object],
    ) -> tuple[socket.socket, int]:
        """Ask for a child with `fds` as its stdin, stdout and stderr; the connection its status comes on."""
        script = self._scripts and bool(argv) and not argv[0].startswith("-")
        if not script and (
            argv[:1] != ["-m"]
            or not any(argv[1] == name or argv[1].startswith(f"{name}.") for name in self._modules)
        ):
            scripts = " or a script file" if self._scripts else ""
            raise ValueError(f"only `-m` with one of {self._modules}{scripts}: {argv}")
        # As subprocess does: the caller's environment and folder unless others are given.
        env = dict(os.environ) if env is None else env
        differing = [name for name, value in self._imported_with.items() if env.get(name) != value]
        if differing:
            raise ValueError(f"the preloaded modules were imported with other {differing}")
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            connection.settimeout(60)
            connection.connect(self._address)
            request = json.dumps(
                {"argv": argv, "env": env, "cwd": str(cwd or Path.cwd()), **options}
            ).encode()
            socket.send_fds(connection, [request], fds)
            connection.shutdown(socket.SHUT_WR)
            pid = int(_read_line(connection))
        except BaseException:
            connection.close()
            raise
        connection.settimeout(None)
        return connection, pid

    def close(self) -> None:
        """The server ends, and kills the children still running (a test that failed may leave one); a
        shared one (`shared`) runs on until its owner ends."""
        if self._shared:
            return
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._process.stdout.close()
        if self._folder is not None:
            self._folder.cleanup()

    def __enter__(self) -> ForkServer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _umask(given: int | None) -> int:
    """`given`, or this process's umask: as Linux shows it, else read by setting it and putting it back (a
    file another thread makes meanwhile would get the tighter one)."""
    if given is not None:
        return given
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    current = os.umask(0o077)
    os.umask(current)
    return current


def _read_line(connection: socket.socket) -> bytes:
    """One line from the server, byte by byte: nothing past it is taken from the socket (the exit status
    that follows a pid is read later, by whoever waits)."""
    line = b""
    while not line.endswith(b"\n"):
        byte = connection.recv(1)
        if not byte:
            raise ConnectionError("the fork server closed the connection")
        line += byte
    return line


class Spawned:
    """A forked child that runs on, handled as subprocess.Popen handles its child: `stdout`, `pid`,
    `returncode`, `send_signal`, `terminate`, `kill`, `poll` and `wait` (which raises
    subprocess.TimeoutExpired as Popen's does). Its exit status comes from the fork server, which reaps it."""

    def __init__(self, pid: int, connection: socket.socket, stdout: IO[str]) -> None:
        self.pid = pid
        self.stdout: IO[str] | None = stdout
        self.returncode: int | None = None
        self._connection = connection
        self.args = ["-m", "(forked)"]

    def send_signal(self, number: int) -> None:
        # As Popen's: a child known to have ended is not signalled (its pid may belong to another process by
        # now), and one that ended since the last look (the server reaps it) is no error either.
        if self.poll() is not None:
            return
        try:
            os.kill(self.pid, number)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def poll(self) -> int | None:
        if self.returncode is None and select.select([self._connection], [], [], 0)[0]:
            self._finish()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not select.select([self._connection], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired(self.args, timeout or 0)
            self._finish()
        assert self.returncode is not None
        return self.returncode

    def _finish(self) -> None:
        with self._connection:
            self.returncode = int(_read_line(self._connection))

    def __enter__(self) -> Spawned:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self.stdout is not None:
            self.stdout.close()
        self.wait()


if __name__ == "__main__":
    from tests.fork_parent import serve

    if sys.argv[1] == "--owner":
        serve(sys.argv[3], sys.argv[4:], owner=int(sys.argv[2]))
    else:
        serve(sys.argv[1], sys.argv[2:])
