"""Every bench in tests/perf runs at its tiny sizes (BENCH_SIZE=tiny, tests/perf/tiny.py) to its figures, and
stops what it started: its process exits cleanly (a QThread still running at exit aborts it) with no
traceback printed (a task of its that failed while it went on), no process of its session outlives it (a
sandbox, a proxy, a peer), and no temporary folder is left (a sandbox's store).

A bench that needs what the default test command does not install (wrk, mitmproxy, the local extra, the
peers) is skipped without it, as the tests of the same things are.

Each bench is forked from a parent that imported what they share (tests/fork_server.py), rather than started
as a new interpreter: the imports are about half of what the check costs otherwise. The child is a process of
its own, as `python -m` runs it: its own session, environment, folder and temporary folder, its own output and
exit code, and it ends as the interpreter ends (a QThread still running then aborts it, as it would alone).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fork_server import ForkServer
from tests.proxies.servers import mitmdump_command

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(path.stem for path in (ROOT / "tests" / "perf").glob("bench_*.py"))


# What the benches import and share, loaded once in the parent they are forked from. Nothing of tests.perf:
# tests/perf/tiny.py reads BENCH_SIZE when imported, which the child's environment sets. Besides the
# libraries, what their first use imports (httpx's transports, the official client's stream helpers, the
# sandbox's uvicorn protocols) and what a console the benches launch imports once it runs (the Playground,
# the keychain's package): each bench and each console it forks would import them again, ~0.1-0.2 CPU-s.
PRELOAD = (
    "PySide6.QtWidgets",
    "qasync",
    "httpx",
    # What a client's first request loads (httpx's transport and, on an event loop, anyio's backend), in
    # most benches; the official client's resource, stream helpers and transport, and websockets' clients,
    # in several.
    "httpcore",
    "anyio._backends._asyncio",
    "openai",
    "openai.resources.responses",
    "openai.resources.responses.responses",
    "openai.lib.streaming.responses",
    "httpcore2",
    "websockets.asyncio.client",
    "websockets.sync.client",
    "app.sandbox.cli",
    "uvicorn.protocols.http.httptools_impl",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "uvicorn.lifespan.off",
    "app.api.client",
    # `module:function`: called once imported. The console's shared default SSL context (its CAs parsed,
    # ~20 ms), inherited by each bench and console forked with the parent's SSL_CERT_FILE and SSL_CERT_DIR.
    "app.api.connection:default_ssl_context",
    "app.api.socket_mode",
    "app.core.playground.turn_runner",
    "app.bootstrap",
    "app.ui.main_window",
    "app.ui.playground.tab",
    "keyring",  # its backend is chosen on first use (PYTHON_KEYRING_BACKEND), in the child
    "platformdirs",
)


def _missing(module: str) -> bool:
    return importlib.util.find_spec(module) is None


# Benches of real programs run with their marker's tests (`-m local`: packaging/dev.sh test-local, and so on),
# as those tests do, and only with what they need installed.
MARKED = {
    "bench_local": "local",
    "bench_local_tools": "local",
    "bench_upstream": "peers",
    "bench_proxy": "proxies",
}
NEEDS: dict[str, tuple[bool, str]] = {
    "bench_gateway": (shutil.which("wrk") is None, "needs wrk (Debian package)"),
    "bench_proxy": (mitmdump_command() is None, "needs mitmproxy: bash packaging/proxies.sh"),
    "bench_local": (_missing("llama_cpp"), "needs the local extra: bash packaging/dev.sh test-local"),
    "bench_local_tools": (_missing("llama_cpp"), "needs the local extra: bash packaging/dev.sh test-local"),
    "bench_upstream": (_missing("starlette_context"), "needs the peers: bash packaging/dev.sh test-peers"),
}


FAILING: dict[str, str] = {}  # a bench known to fail, and why (each mark is removed once it is fixed)


def marks(bench: str) -> list[pytest.MarkDecorator]:
    found = [pytest.mark.skipif(NEEDS[bench][0], reason=NEEDS[bench][1])] if bench in NEEDS else []
    found += [pytest.mark.xfail(strict=False, reason=FAILING[bench])] if bench in FAILING else []
    return found + ([getattr(pytest.mark, MARKED[bench])] if bench in MARKED else [])


def session_members(session: int) -> list[str]:
    """The processes of a session (Linux /proc), as "pid command"."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            members.append(f"{stat.parent.name} {command.strip()}")
    return members


def survivors(session: int, grace: float = 3.0) -> list[str]:
    """Processes of the bench's session still running `grace` seconds after it exited; they are killed."""
    deadline = time.monotonic() + grace
    while (left := session_members(session)) and time.monotonic() < deadline:
        time.sleep(0.05)
    if left:
        os.killpg(session, signal.SIGKILL)
    return left


# The benches run on one xdist worker, which starts their parent once: spread over both, each worker started
# its own (~1.4 CPU-s each). Scheduled as one unit, the largest, so first (xdist's loadgroup), not at the end.
pytestmark = pytest.mark.xdist_group("benches")


@pytest.fixture(scope="module")
def bench_parent() -> Iterator[ForkServer]:
    with ForkServer(PRELOAD, modules=("tests.perf",)) as server:
        yield server


def test_the_benches_share_one_worker_and_so_one_parent(request: pytest.FixtureRequest) -> None:
    module = request.node.module
    groups = {
        tuple(marker.args) if (marker := item.get_closest_marker("xdist_group")) else None
        for item in request.session.items
        if isinstance(item, pytest.Function) and item.module is module
    }
    assert groups == {("benches",)}


# The test's own deadline past the bench's (90 s, then its session killed): pytest-timeout's 60 s would end the
# test with the bench and whatever it started still running, each for as long as its own run lasts.
@pytest.mark.timeout(120)
@pytest.mark.parametrize("bench", [pytest.param(name, marks=marks(name)) for name in BENCHES])
def test_the_bench_runs_at_a_tiny_size_and_stops_what_it_started(
    bench: str, tmp_path: Path, request: pytest.FixtureRequest, bench_parent: ForkServer
) -> None:
    marker = MARKED.get(bench)
    selected = request.config.getoption("markexpr") or ""
    if marker is not None and (marker not in selected or f"not {marker}" in selected):
        pytest.skip(f"runs with the tests marked {marker} (-m {marker})")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_XDIST_WORKER"}
    env |= {"BENCH_SIZE": "tiny", "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(temporary)}
    # No keychain: the run's Secret Service is shared, and a console the bench launches would store its
    # embedded profile's key under the name a selftest of another test running meanwhile reads.
    env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    try:
        # Its own session: whatever it starts is found there afterwards (a timeout kills the session).
        done = bench_parent.run(
            ["-m", f"tests.perf.{bench}"], env=env, cwd=ROOT, timeout=90, new_session=True, finalize=True
        )
    except TimeoutError:
        raise AssertionError(f"{bench} ran past 90 s at its tiny size") from None
    left = survivors(done.pid)
    out, err = done.out, done.err
    assert done.code == 0, f"{bench} exited with {done.code}:\n{out}\n{err}"
    assert "QThread: Destroyed" not in err
    # A task of the bench's that failed (logged, the loop going on) leaves its figure measuring nothing.
    assert "Traceback" not in err, f"{bench} printed a traceback:\n{err}"
    assert re.search(r"\d", out), f"{bench} printed no figures:\n{out}\n{err}"
    assert left == [], f"{bench} left processes running: {left}"
    assert sorted(path.name for path in temporary.iterdir()) == [], f"{bench} left temporary files behind"


def test_a_gateway_pair_the_process_clock_did_not_count_has_no_cpu_ratio() -> None:
    """The server's CPU is read in clock ticks: a short run at the tiny size can read none (CI did, once)."""
    from tests.perf.bench_gateway import Pair, Run, cpu_line

    counted, uncounted = Pair(Run(1000.0, 80.0), Run(900.0, 100.0)), Pair(Run(1000.0, 80.0), Run(900.0, 0.0))
    assert "median 0.80x" in cpu_line("allowed", [counted, uncounted])
    assert "+20 µs" in cpu_line("allowed", [counted, uncounted])
    assert "no pair ran long enough" in cpu_line("mtls", [uncounted])
