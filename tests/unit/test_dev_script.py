"""`bash packaging/dev.sh run` installs only when pyproject.toml changed since the last install."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fake_venv(root: Path, log: Path) -> None:
    """A venv whose python logs `-m pip` calls (and runs anything else for real) and whose console says so."""
    bin_dir = root / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "pip $*" >> "{log}"; exit 0; fi\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    console = bin_dir / "service-console"
    console.write_text(f'#!/bin/sh\necho "console $*" >> "{log}"\n')
    for path in (python, console):
        path.chmod(path.stat().st_mode | stat.S_IEXEC)


def run(root: Path) -> None:
    subprocess.run(
        ["bash", "packaging/dev.sh", "run", "--version"],
        cwd=root,
        env={**os.environ, "DEV_SKIP_APT": "1"},
        check=True,
        timeout=60,
    )


def test_run_installs_once_then_only_after_pyproject_changes(tmp_path: Path) -> None:
    (tmp_path / "packaging").mkdir()
    shutil.copy(ROOT / "packaging" / "dev.sh", tmp_path / "packaging" / "dev.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
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
    (tmp_path / "packaging").mkdir()
    shutil.copy(ROOT / "packaging" / "dev.sh", tmp_path / "packaging" / "dev.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "packaging" / "node_client.sh").write_text("exit 0\n")
    log = tmp_path / "calls.log"
    fake_venv(tmp_path, log)
    bin_dir = tmp_path / ".venv" / "bin"
    for check in ("ruff", "lint-imports", "mypy"):
        (bin_dir / check).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / check).chmod(0o755)
    python = bin_dir / "python"
    python.write_text(
        f'#!/bin/sh\nif [ "$2" = "pytest" ]; then echo "temproot=$PYTEST_DEBUG_TEMPROOT" >> "{log}"; exit 0; fi\n'
        + python.read_text().split("\n", 1)[1]
    )
    if (
        shutil.which("dbus-run-session") is None
    ):  # dev.sh test installs it (the dbus package) before this runs
        raise AssertionError("dbus-run-session is missing: run the suite through packaging/dev.sh test")

    def temproot(environment: dict[str, str]) -> str:
        log.write_text("")
        subprocess.run(
            ["bash", "packaging/dev.sh", "test"],
            cwd=tmp_path,
            env={**environment, "DEV_SKIP_APT": "1", "PATH": os.environ["PATH"]},
            check=True,
            timeout=60,
            stdout=subprocess.DEVNULL,
        )
        return next(line for line in log.read_text().splitlines() if line.startswith("temproot="))

    plain = {k: v for k, v in os.environ.items() if k != "PYTEST_DEBUG_TEMPROOT"}
    roomy = os.path.isdir("/dev/shm") and shutil.disk_usage("/dev/shm").free >= 2 * 1024**3
    assert temproot(plain) == ("temproot=/dev/shm" if roomy else "temproot=")
    assert temproot({**plain, "PYTEST_DEBUG_TEMPROOT": str(tmp_path)}) == f"temproot={tmp_path}"
