"""The set-up scripts (packaging/dev.sh, proxies.sh, setup_steps.sh): pip only when pyproject.toml changed since
the last install, apt-get that waits for another's package lock, the tests' folders and sessions."""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def fake_venv(root: Path, log: Path) -> None:
    """A venv whose python logs `-m pip` calls (and runs anything else for real) and whose console says so."""
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "pip $*" >> "{log}"; exit 0; fi\n'
        f'if [ "$1" = "-m" ] && [ "$2" = "pytest" ]; then echo "pytest $*" >> "{log}"; exit 0; fi\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    console = bin_dir / "service-console"
    console.write_text(f'#!/bin/sh\necho "console $*" >> "{log}"\n')
    for path in (python, console):
        path.chmod(path.stat().st_mode | stat.S_IEXEC)


def project(root: Path, *scripts: str) -> None:
    """A copy of the project's set-up scripts and pyproject.toml in `root`."""
    (root / "packaging").mkdir()
    for script in ("dev.sh", "setup_steps.sh", *scripts):
        shutil.copy(ROOT / "packaging" / script, root / "packaging" / script)
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")


def stand_ins(folder: Path, **commands: str) -> str:
    """Executables named by `commands` (name -> shell script body) in `folder`; a PATH that finds them first."""
    folder.mkdir(exist_ok=True)
    for name, body in commands.items():
        (folder / name).write_text(f"#!/bin/sh\n{body}\n")
        (folder / name).chmod(0o755)
    return f"{folder}:{os.environ['PATH']}"


def without_apt_skip() -> dict[str, str]:
    """This process's environment less DEV_SKIP_APT, for the tests of the apt-get steps: a run of the suite
    on a machine set up by hand (`DEV_SKIP_APT=1 bash packaging/dev.sh test`) passes it on to them."""
    return {name: value for name, value in os.environ.items() if name != "DEV_SKIP_APT"}


def run(root: Path) -> None:
    subprocess.run(
        ["bash", "packaging/dev.sh", "run", "--version"],
        cwd=root,
        env={**os.environ, "DEV_SKIP_APT": "1"},
        check=True,
        timeout=60,
    )


def test_run_installs_once_then_only_after_pyproject_changes(tmp_path: Path) -> None:
    project(tmp_path)
    log = tmp_path / "calls.log"
    fake_venv(tmp_path, log)
    run(tmp_path)
    run(tmp_path)
    calls = log.read_text().splitlines()
    assert [c for c in calls if c.startswith("pip")] == [
        "pip -m pip --disable-pip-version-check -q install -e ."
    ]
    assert calls.count("console --version") == 2
    with (tmp_path / "pyproject.toml").open("a") as file:
        file.write("\n# a new dependency, say\n")
    run(tmp_path)
    assert len([c for c in log.read_text().splitlines() if c.startswith("pip")]) == 2


def test_the_tests_temporary_folders_go_to_dev_shm_only_with_room_there(tmp_path: Path) -> None:
    """`dev.sh test` puts pytest's temporary folders on /dev/shm when it has 2 GB free, and leaves a folder
    chosen in the environment alone. The checks and the installs are stand-ins here; pytest reports its
    environment instead of running."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    pytest_stand_in(python, f'  echo "temproot=$PYTEST_DEBUG_TEMPROOT" >> "{log}"\n  exit 0\n')

    def temproot(environment: dict[str, str]) -> str:
        log.write_text("")
        done = run_dev_test(tmp_path, environment={**environment, "PATH": os.environ["PATH"]})
        assert done.returncode == 0, done.stdout + done.stderr
        return next(line for line in log.read_text().splitlines() if line.startswith("temproot="))

    plain = {k: v for k, v in os.environ.items() if k != "PYTEST_DEBUG_TEMPROOT"}
    roomy = os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free >= 2 * 1024**3
    assert temproot(plain) == ("temproot=/dev/shm" if roomy else "temproot=")
    assert temproot({**plain, "PYTEST_DEBUG_TEMPROOT": str(tmp_path)}) == f"temproot={tmp_path}"


def test_apt_get_waits_for_the_package_lock_another_holds_and_says_so(tmp_path: Path) -> None:
    """As unattended-upgrades holds it on a freshly booted machine: dev.sh names the holder and apt-get is
    told to wait for the lock instead of stopping at once."""
    project(tmp_path)
    log = tmp_path / "calls.log"
    fake_venv(tmp_path, log)
    path = stand_ins(
        tmp_path / "bin",
        **{
            "apt-get": f'echo "apt-get $*" >> "{log}"',
            "dpkg-query": "exit 1",  # nothing is installed
            "sudo": 'exec "$@"',
        },
    )
    lock = tmp_path / "lock-frontend"
    with lock.open("w") as held:
        fcntl.lockf(held, fcntl.LOCK_EX)  # a POSIX lock, as dpkg takes it
        done = subprocess.run(
            ["bash", "packaging/dev.sh", "run", "--version"],
            cwd=tmp_path,
            env={
                **without_apt_skip(),
                "PATH": path,
                "DPKG_FRONTEND_LOCK": str(lock),
                "APT_LOCK_TIMEOUT": "5",
            },
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
    comm = Path(f"/proc/{os.getpid()}/comm").read_text().strip()
    assert (
        f"Waiting up to 5 s (APT_LOCK_TIMEOUT) for the package lock, held by process {os.getpid()} ({comm})"
        in (done.stderr)
    )
    apt_calls = [line for line in log.read_text().splitlines() if line.startswith("apt-get")]
    assert apt_calls[0] == "apt-get -o DPkg::Lock::Timeout=5 update -qq"
    assert apt_calls[1].startswith(
        "apt-get -o DPkg::Lock::Timeout=5 install -y -qq --no-install-recommends libegl1"
    )
    assert "console --version" in log.read_text()


def test_no_message_when_nobody_holds_the_package_lock(tmp_path: Path) -> None:
    project(tmp_path)
    log = tmp_path / "calls.log"
    fake_venv(tmp_path, log)
    path = stand_ins(
        tmp_path / "bin",
        **{"apt-get": f'echo "apt-get $*" >> "{log}"', "dpkg-query": "exit 1", "sudo": 'exec "$@"'},
    )
    (tmp_path / "lock-frontend").touch()
    done = subprocess.run(
        ["bash", "packaging/dev.sh", "run", "--version"],
        cwd=tmp_path,
        env={**without_apt_skip(), "PATH": path, "DPKG_FRONTEND_LOCK": str(tmp_path / "lock-frontend")},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "Waiting" not in done.stderr
    assert "apt-get -o DPkg::Lock::Timeout=900 update -qq" in log.read_text()


def test_proxies_script_installs_once_then_only_after_pyproject_changes(tmp_path: Path) -> None:
    project(tmp_path, "proxies.sh")
    log = tmp_path / "calls.log"
    fake_venv(tmp_path, log)
    mitmdump = tmp_path / ".proxies-venv" / "bin" / "mitmdump"
    mitmdump.parent.mkdir(parents=True)
    shutil.copy(tmp_path / ".venv" / "bin" / "python", mitmdump.parent / "python")
    mitmdump.write_text("#!/bin/sh\n")
    mitmdump.chmod(0o755)
    path = stand_ins(tmp_path / "bin", squid="exit 0")

    def run_proxies() -> None:
        subprocess.run(
            ["bash", "packaging/proxies.sh", "-q"],
            cwd=tmp_path,
            env={**without_apt_skip(), "PATH": path},
            check=True,
            timeout=60,
        )

    run_proxies()
    run_proxies()
    calls = log.read_text().splitlines()
    assert [c for c in calls if c.startswith("pip")] == [
        "pip -m pip --disable-pip-version-check -q install -e .[test]"
    ]
    assert calls.count("pytest -m pytest -m proxies tests/proxies tests/unit/test_benches.py -q") == 2
    with (tmp_path / "pyproject.toml").open("a") as file:
        file.write("\n# a new dependency, say\n")
    run_proxies()
    assert len([c for c in log.read_text().splitlines() if c.startswith("pip")]) == 2


def stand_in_checks(root: Path, log: Path) -> Path:
    """dev.sh test's surroundings in `root`, the checks and installs stood in for; returns the venv's python."""
    project(root)
    (root / "packaging" / "node_client.sh").write_text("exit 0\n")
    fake_venv(root, log)
    bin_dir = root / ".venv" / "bin"
    for check in ("ruff", "lint-imports", "mypy"):
        (bin_dir / check).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / check).chmod(0o755)
    return bin_dir / "python"


def pytest_stand_in(python: Path, body: str) -> None:
    """The stand-in venv `python` (stand_in_checks) runs the shell lines `body` where pytest would run."""
    python.write_text(
        '#!/bin/sh\nif [ "$2" = "pytest" ]; then\n' + body + "fi\n" + python.read_text().split("\n", 1)[1]
    )


def run_dev_test(
    root: Path, *arguments: str, environment: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`dev.sh test` in `root` (its checks and installs stood in for: stand_in_checks), apt-get skipped,
    each session on a bus of the machine's dbus-run-session; `environment`: in place of this process's."""
    if (
        shutil.which("dbus-run-session") is None
    ):  # dev.sh test installs it (the dbus package) before this runs
        raise AssertionError("dbus-run-session is missing: run the suite through packaging/dev.sh test")
    return subprocess.run(
        ["bash", "packaging/dev.sh", "test", *arguments],
        cwd=root,
        env={**(os.environ if environment is None else environment), "DEV_SKIP_APT": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("qt_free", "others", "expected"),
    [(0, 0, 0), (1, 0, 1), (0, 1, 1), (5, 0, 0), (0, 5, 0), (5, 5, 5), (2, 5, 2)],
)
def test_the_tests_run_in_two_sessions_with_the_arguments_and_fail_if_either_fails(
    tmp_path: Path, qt_free: int, others: int, expected: int
) -> None:
    """The Qt-free packages' tests with Qt refused, and the others, each given the arguments (.ci/run's -q
    -p no:cacheprovider). A session with no test to run (exit status 5) does not fail the run on its own."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    pytest_stand_in(
        python,
        f'  echo "pytest $*" >> "{log}"\n'
        f'  case "$*" in *--qt-free=only*) exit {qt_free};; *) exit {others};; esac\n',
    )
    done = run_dev_test(tmp_path, "-q", "-p", "no:cacheprovider")
    assert done.returncode == expected
    sessions = [line for line in log.read_text().splitlines() if line.startswith("pytest")]
    assert sorted(sessions) == [  # started at once: either may write first
        "pytest -m pytest -n 2 --qt-free=only -q -p no:cacheprovider",
        "pytest -m pytest -n 2 --qt-free=others -p no:schemathesis -q -p no:cacheprovider",
    ]
    # Each session's output whole, the Qt-free one first, whatever order they ended in.
    assert done.stdout.index("the Qt-free packages") < done.stdout.index("== pytest: the others")


@pytest.mark.parametrize("mypy_status", [0, 1])
def test_the_checks_run_beside_the_tests_and_a_failed_one_fails_the_run(
    tmp_path: Path, mypy_status: int
) -> None:
    """The stand-in mypy ends only once both sessions have started (up to 30 s), so the run passes only if
    the checks and the tests run at once. Its output comes before the tests' and, when it fails, the tests
    still run and the run fails with its status."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    pytest_stand_in(python, f'  echo "pytest $*" >> "{log}"\n  exit 0\n')
    (tmp_path / ".venv" / "bin" / "mypy").write_text(
        "#!/bin/sh\ni=0\n"
        f'while [ "$(grep -c ^pytest "{log}" 2>/dev/null)" != 2 ]; do\n'
        '  i=$((i + 1)); [ $i -gt 300 ] && { echo "mypy: the tests never started"; exit 9; }\n'
        "  sleep 0.1\n"
        "done\n"
        f'echo "mypy said its piece"; exit {mypy_status}\n'
    )
    done = run_dev_test(tmp_path, "-q")
    assert done.returncode == mypy_status, done.stdout + done.stderr
    assert done.stdout.index("mypy said its piece") < done.stdout.index("== pytest: the Qt-free packages")
    assert len([line for line in log.read_text().splitlines() if line.startswith("pytest")]) == 2
    assert ("== a check failed" in done.stdout) == bool(mypy_status)


def test_the_checks_stop_at_the_first_that_fails(tmp_path: Path) -> None:
    """ruff fails: the import layers and mypy are not run, the tests are, and the run fails with ruff's status."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    pytest_stand_in(python, f'  echo "pytest $*" >> "{log}"\n  exit 0\n')
    bin_dir = tmp_path / ".venv" / "bin"
    (bin_dir / "ruff").write_text('#!/bin/sh\necho "ruff found a fault"; exit 3\n')
    for later in ("lint-imports", "mypy"):
        (bin_dir / later).write_text(f'#!/bin/sh\necho "{later} ran" >> "{log}"\n')
    done = run_dev_test(tmp_path, "-q")
    assert done.returncode == 3 and "ruff found a fault" in done.stdout, done.stdout + done.stderr
    calls = log.read_text().splitlines()
    assert not [line for line in calls if line.endswith(" ran")], calls
    assert len([line for line in calls if line.startswith("pytest")]) == 2


def test_the_two_sessions_run_at_once_each_on_a_session_bus_and_keyring_of_its_own(tmp_path: Path) -> None:
    """One after the other, the cores idle through each session's start and end; at once, each has its own
    Secret Service, so one's keychain tests never read the keys the other's console selftests store. Each
    stand-in session waits (up to 30 s) until the other has started too, and says which bus it was given."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    started = tmp_path / "started"
    started.mkdir()
    pytest_stand_in(
        python,
        f'  touch "{started}/$$"\n'
        "  i=0\n"
        f'  while [ "$(ls "{started}" | wc -l)" -lt 2 ]; do\n'
        "    i=$((i + 1)); [ $i -gt 300 ] && exit 3\n"
        "    sleep 0.1\n"
        "  done\n"
        f'  echo "bus=$DBUS_SESSION_BUS_ADDRESS" >> "{log}"\n'
        "  exit 0\n",
    )
    done = run_dev_test(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    buses = [line for line in log.read_text().splitlines() if line.startswith("bus=")]
    assert len(buses) == 2 and len(set(buses)) == 2 and "bus=" not in buses, buses


def test_both_sessions_share_one_fork_server_that_ends_with_the_script(tmp_path: Path) -> None:
    """The tests' `python -m app ...` parent (tests/conftest.py, python_m) is one for both sessions: they are
    given one folder for it and the script's process as its owner."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    pytest_stand_in(
        python,
        '  owner=$(tr "\\0" " " < /proc/$TESTS_FORK_SERVER_OWNER/cmdline)\n'
        f'  [ -d "$TESTS_FORK_SERVER_FOLDER" ] && echo "fork server: $owner" >> "{log}"\n'
        "  exit 0\n",
    )
    done = run_dev_test(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    shared = [line for line in log.read_text().splitlines() if line.startswith("fork server:")]
    assert len(shared) == 2 and len(set(shared)) == 1 and "packaging/dev.sh test" in shared[0], shared


def test_each_sessions_keyring_daemon_holds_its_name_before_pytest_and_is_gone_when_the_run_ends(
    tmp_path: Path,
) -> None:
    """pytest starts once the session's Secret Service answers on its bus, and the daemon is stopped and
    waited for before its folder is removed: one left to quit with its bus lived on for minutes, writing its
    keyring while the folder was being removed, and failed the run now and then."""
    log = tmp_path / "calls.log"
    python = stand_in_checks(tmp_path, log)
    pytest_stand_in(
        python,
        "  dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \\\n"
        "    org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets \\\n"
        f'    | awk \'{{print "keyring=" $2}}\' >> "{log}"\n'
        "  exit 0\n",
    )
    done = run_dev_test(tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stdout + done.stderr
    keyrings = [
        line.removeprefix("keyring=") for line in log.read_text().splitlines() if line.startswith("keyring=")
    ]
    assert len(keyrings) == 2 and all(pid.isdigit() for pid in keyrings), keyrings
    assert [pid for pid in keyrings if Path(f"/proc/{pid}").exists()] == []
