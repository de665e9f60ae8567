"""The fork server (tests/fork_server.py) answers as a real `python -m` does: the same exit code, the same
output on the same streams, each call in a process of its own with the environment it was given."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.cli_support import environment
from tests.conftest import Sandbox
from tests.fork_server import ROOT, ForkServer, Spawned


def real(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, *argv], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "app", "allowlist", "frobnicate"],  # argparse: exit 2, usage on stderr
        ["-m", "app", "allowlist", "list", "--json"],  # no service named: exit 2, JSON on stdout
        ["-m", "app.sandbox", "allowlist", "show", "--data", "{tmp}"],  # sys.exit("message"): exit 1
    ],
)
def test_a_forked_call_answers_as_a_real_process_does(
    argv: list[str], python_m: ForkServer, tmp_path: Path
) -> None:
    argv = [word.replace("{tmp}", str(tmp_path)) for word in argv]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    env["PYTHONPATH"] = str(ROOT)
    done = python_m.run(argv, env=env, cwd=ROOT)
    assert (done.code, done.out, done.err) == real(argv, env)
    assert done.code != 0


def test_each_call_has_its_own_environment(sandbox: Sandbox, python_m: ForkServer) -> None:
    base = {k: v for k, v in os.environ.items() if not k.startswith("SERVICE_")}
    argv = ["-m", "app", "allowlist", "list", "--json"]
    pointed = {
        **base,
        # TLS to the sandbox's plain HTTP: a network failure at once (a refused port is retried, with backoff).
        "SERVICE_BASE_URL": sandbox.url.replace("http://", "https://"),
        "SERVICE_ORG_ID": "org_x",
        "SERVICE_ADMIN_KEY": "sk-admin-x",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
    }
    failed = python_m.run(argv, env=pointed)
    assert failed.code == 4 and "TLS" in failed.stderr, failed.stderr
    assert python_m.run(argv, env=base).code == 2  # the last call's variables did not stay behind


def test_a_command_s_request_imports_nothing_the_parent_did_not(
    sandbox: Sandbox, python_m: ForkServer
) -> None:
    """What a command needs to ask the service is imported once, in the parent: a child that imported
    httpx's transport (httpcore) and anyio's asyncio backend itself spent ~40 ms of CPU of its ~55 there,
    and the tests fork about two hundred of them."""
    done = python_m.run(["-m", "tests.preload_probe", "allowlist", "whoami"], env=environment(sandbox))
    assert done.code == 0, done.err
    assert done.out.splitlines()[0] == "127.0.0.1"
    assert json.loads(done.out.splitlines()[-1]) == []


def test_only_python_m_of_the_app_s_command_lines(python_m: ForkServer) -> None:
    with pytest.raises(ValueError, match="only `-m`"):
        python_m.run(["-c", "print(1)"])


def test_a_spawned_server_runs_on_and_is_handled_as_popen_handles_its_child(
    python_m: ForkServer, tmp_path: Path
) -> None:
    """Read while it runs, polled, waited for with a time limit, signalled: the same first line and exit
    status after SIGTERM as a `python -m app.sandbox serve` of its own, -9 after kill -9; and a call made
    meanwhile is answered: the server does not wait for a spawned child to end."""
    argv = ["-m", "app.sandbox", "serve", "--port", "0", "--data"]
    real_one = subprocess.Popen(
        [sys.executable, *argv, str(tmp_path / "real")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    forked, killed = (python_m.spawn([*argv, str(tmp_path / name)]) for name in ("forked", "killed"))
    first_lines = []
    for process in (real_one, forked, killed):
        assert process.stdout is not None
        first_lines.append(process.stdout.readline().split(" at ")[0])
    assert first_lines == ["Sandbox listening"] * 3, first_lines
    assert forked.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        forked.wait(timeout=0.1)
    assert python_m.run(["-m", "app", "allowlist", "frobnicate"]).code == 2
    real_one.terminate()
    forked.terminate()
    killed.kill()
    assert (real_one.wait(timeout=20), forked.wait(timeout=20), killed.wait(timeout=20)) == (0, 0, -9)
    assert forked.poll() == 0
    forked.kill()  # once it is reaped, a signal goes nowhere (its pid may be another process's)
    for process in (real_one, forked, killed):
        assert process.stdout is not None
        process.stdout.close()


def test_a_child_that_ended_unnoticed_is_signalled_as_popen_signals_one(python_m: ForkServer) -> None:
    """A spawned child that exits on its own and is reaped by the server before its handle looks again: a
    signal sent then is no error (Popen's is none either), and the handle still gets its exit status."""
    ended = python_m.spawn(["-m", "app", "allowlist", "frobnicate"])
    assert _gone(ended.pid)  # exited, and reaped by the server: the handle has not looked
    ended.kill()
    assert ended.wait(timeout=10) == 2
    assert ended.stdout is not None
    ended.stdout.close()


def test_children_spawned_at_once_and_ended_in_another_order_each_get_their_own_status(
    python_m: ForkServer, tmp_path: Path
) -> None:
    """Three servers spawned from three threads at once, then ended last first, the middle one by kill -9:
    each handle gets its own child's exit status, and calls made meanwhile are answered."""
    from concurrent.futures import ThreadPoolExecutor

    def start(number: int) -> Spawned:
        process = python_m.spawn(
            ["-m", "app.sandbox", "serve", "--port", "0", "--data", str(tmp_path / str(number))]
        )
        assert process.stdout is not None and "listening at" in process.stdout.readline()
        return process

    with ThreadPoolExecutor(3) as pool:
        first, middle, last = pool.map(start, range(3))
    last.terminate()
    assert last.wait(timeout=20) == 0
    assert python_m.run(["-m", "app", "allowlist", "frobnicate"]).code == 2
    middle.kill()
    first.terminate()
    assert (first.wait(timeout=20), middle.wait(timeout=20)) == (0, -9)
    for process in (first, middle, last):
        assert process.stdout is not None
        process.stdout.close()


def test_a_child_of_its_own_session_ends_as_the_interpreter_ends(tmp_path: Path) -> None:
    """The benches' check (tests/unit/test_benches.py) runs each bench so: in its own session, its own
    temporary folder, and ending as a new interpreter ends (its objects destroyed, its finalizers run)."""
    env = {**os.environ, "PROBE": "given", "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    argv = ["-m", "tests.probe_process", "3"]
    with ForkServer(preload=(), modules=("tests.probe_process",)) as server:
        done = server.run(argv, env=env, cwd=tmp_path, new_session=True, finalize=True)
        quick = server.run(argv, env=env, cwd=ROOT)
    facts, quick_facts = json.loads(done.out), json.loads(quick.out)
    assert done.code == 3
    assert facts["pid"] == facts["sid"] == done.pid  # the session the survivors check looks in
    assert quick_facts["sid"] != quick_facts["pid"]
    assert (facts["cwd"], facts["tmp"], facts["probe"]) == (str(tmp_path), str(tmp_path), "given")
    assert "destroyed at the interpreter's end" in done.err
    assert not Path(facts["folder"]).exists() and list(tmp_path.iterdir()) == []


def reaped_children_page_faults(pid: int) -> int:
    """Minor page faults of the children a process has reaped (Linux /proc: cminflt)."""
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[8])


def test_a_child_s_end_leaves_the_server_s_modules_untouched(tmp_path: Path) -> None:
    """Ending as the interpreter ends, a child tore down the server's preloaded modules too, writing to every
    page it shared with the server (each one copied: ~85 ms of CPU a bench's check); it destroys only what
    it made (tests/forked_end.py), so its end faults in barely more pages than a quick end's."""
    env = {**os.environ, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    argv = ["-m", "tests.probe_process", "0"]
    preload = ("asyncio", "argparse", "decimal", "email.mime.multipart", "http.server", "json", "unittest")
    faults: dict[bool, int] = {}
    with ForkServer(preload=preload, modules=("tests.probe_process",)) as server:
        for finalize in (False, True):
            before = reaped_children_page_faults(server._process.pid)
            done = server.run(argv, env=env, cwd=tmp_path, new_session=True, finalize=finalize)
            assert done.code == 0 and ("destroyed at the interpreter's end" in done.err) == finalize
            faults[finalize] = reaped_children_page_faults(server._process.pid) - before
    # Measured: ~850 pages for a quick end; ~220 more with finalize, ~2,400 more when the end tore it all down.
    assert faults[True] - faults[False] < 1000, faults


SCRIPT = """
import json, os, sys
import probe_helper  # beside the script: its folder is first on sys.path
umask = os.umask(0)
print(json.dumps({
    "argv": sys.argv, "path0": sys.path[0], "file": __file__, "name": __name__, "doc": __doc__,
    "spec": repr(__spec__), "main": sys.modules["__main__"].__file__, "cwd": os.getcwd(),
    "umask": umask, "stdin": sys.stdin.readline(), "key": os.environ.get("PROBE"),
    "helper": probe_helper.WHERE,
}))
print("on stderr", file=sys.stderr)
if sys.argv[1] == "raise":
    raise KeyError("from the script")
sys.exit(int(sys.argv[1]))
"""


@pytest.mark.parametrize("ending", ["3", "raise"])
def test_a_script_runs_as_python_file_does(ending: str, tmp_path: Path) -> None:
    """`python folder/probe.py ...` forked from a server that may run scripts: the same argv, sys.path,
    `__file__`, `__main__`, working directory, umask, stdin, environment, output and exit code (a traceback
    from the script's frame, 1) as a new interpreter's."""
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "probe.py").write_text('"""A probe."""\n' + SCRIPT)
    (folder / "probe_helper.py").write_text("import os\nWHERE = os.path.dirname(__file__)\n")
    (tmp_path / "stdin").write_text("given on stdin\n")
    env = {**os.environ, "PROBE": "given"}
    argv = ["folder/probe.py", ending]
    with open(tmp_path / "stdin", "rb") as stdin:
        done = subprocess.run(
            [sys.executable, *argv],
            env=env,
            cwd=tmp_path,
            stdin=stdin,
            umask=0o027,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    with ForkServer(preload=("json",), modules=(), scripts=True) as server, open(tmp_path / "stdin") as stdin:
        previous = os.umask(0o027)  # the caller's, which the child gets as a child process inherits it
        try:
            forked = server.run(argv, env=env, cwd=tmp_path, stdin=stdin.fileno())
        finally:
            os.umask(previous)
        given = server.run(argv, env=env, cwd=tmp_path, umask=0o022)
    assert (forked.code, forked.out, forked.err) == (done.returncode, done.stdout, done.stderr)
    assert json.loads(given.out)["umask"] == 0o022 and json.loads(given.out)["stdin"] == ""
    assert done.returncode == (1 if ending == "raise" else 3)
    assert json.loads(done.stdout)["helper"] == str(folder)
    with pytest.raises(ValueError, match="only `-m`"):
        server.run(["-c", "print(1)"])


def _gone(pid: int, within: float = 10) -> bool:
    """Whether the process has ended (and been reaped by whoever its parent is) within the time."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":  # ended, its parent not yet told
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_closing_the_server_ends_the_children_a_failed_test_left_running(tmp_path: Path) -> None:
    """A test that fails while its server runs leaves it running: the fork server's end takes it along,
    in its own session or not."""
    server = ForkServer()
    left = server.spawn(["-m", "app.sandbox", "serve", "--port", "0", "--data", str(tmp_path / "one")])
    assert left.stdout is not None and "listening at" in left.stdout.readline()
    server_pid = server._process.pid
    server.close()
    assert _gone(left.pid) and _gone(server_pid)
    left.stdout.close()
    left._connection.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_caller_that_dies_without_closing_takes_the_server_and_its_children_along(tmp_path: Path) -> None:
    """A pytest worker killed mid-run never calls close(): its pipe's end of file is the server's cue."""
    caller = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys\n"
            "from tests.fork_server import ForkServer\n"
            "server = ForkServer()\n"
            f"child = server.spawn(['-m', 'app.sandbox', 'serve', '--port', '0', '--data', {str(tmp_path)!r}])\n"
            "child.stdout.readline()\n"
            "print(server._process.pid, child.pid, flush=True)\n"
            "os._exit(0)\n",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    server_pid, child_pid = (int(pid) for pid in caller.stdout.split())
    assert _gone(child_pid) and _gone(server_pid)


MODULES = ("tests.probe_process",)


def _owner() -> subprocess.Popen[bytes]:
    """A process that runs until its stdin is closed."""
    return subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)


def _end(owner: subprocess.Popen[bytes]) -> None:
    assert owner.stdin is not None
    owner.stdin.close()
    owner.wait()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_shared_server_serves_every_process_that_names_its_folder_until_its_owner_ends(
    tmp_path: Path,
) -> None:
    """xdist's workers of one run share one server (tests/conftest.py, python_m), which ends with their
    controller, the children still running with it; closing it in a worker leaves it to the others."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = ["-m", "tests.probe_process", "0"]
    owner = _owner()
    try:
        first = ForkServer.shared(tmp_path, owner.pid, preload=(), modules=MODULES)
        second = ForkServer.shared(tmp_path, owner.pid, preload=(), modules=MODULES)
        first.close()
        one, other = first.run(argv, env=env, cwd=tmp_path), second.run(argv, env=env, cwd=tmp_path)
        assert (one.code, other.code) == (0, 0)
        children = {json.loads(done.out)["pid"] for done in (one, other)}
        left = second.spawn(["-m", "tests.probe_process", "600", "0"], env=env, cwd=tmp_path)
        assert left.stdout is not None and json.loads(left.stdout.readline())["pid"] == left.pid
        server = int(Path(f"/proc/{left.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    finally:
        _end(owner)
    assert len(children) == 2  # each call a process of its own
    assert _gone(left.pid) and _gone(server)
    left.stdout.close()
    left._connection.close()
    owner = _owner()
    try:  # the ended server's socket is left behind: the next run starts a new one there
        again = ForkServer.shared(tmp_path, owner.pid, preload=(), modules=MODULES)
        assert again.run(argv, env=env, cwd=tmp_path).code == 0
    finally:
        _end(owner)


def test_a_shared_server_holds_none_of_its_starter_s_output(tmp_path: Path) -> None:
    """It outlives the process that started it: a reader of that process's output (a pytest run inside a
    test, captured) gets its end when the process ends, not when the server does."""
    start = (
        "import sys\nfrom pathlib import Path\nfrom tests.fork_server import ForkServer\n"
        "ForkServer.shared(Path(sys.argv[1]), int(sys.argv[2]), preload=(), modules=('tests.probe_process',))\n"
    )
    owner = _owner()
    try:
        started = subprocess.run(
            [sys.executable, "-c", start, str(tmp_path), str(owner.pid)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            timeout=30,
        )
        assert started.returncode == 0, started.stderr
    finally:
        _end(owner)
