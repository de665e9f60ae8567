"""A console that cannot write where it keeps things says so and exits 1: on stderr, in the selftest's
line, and in a message box when there is a screen; never a silent exit with the reason in the log only.

The data folder is made really read-only: a read-only bind mount in a mount namespace of the launch's own
when this runs as root (root writes through a folder's mode), chmod otherwise; and, anywhere, a file where
the folder should be.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.__main__ import cannot_start, parse_args
from app.core.playground.conversation_store import ConversationStore
from app.core.settings import ConsoleFolders
from app.core.writable import unwritable

ROOT = Path(__file__).resolve().parents[2]
# Runs "$@" with $1 bind-mounted read-only onto itself, in a mount namespace that ends with the command.
READ_ONLY = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@"'


def launch(home: Path, *extra: str, read_only: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A new interpreter, not a child of the preloaded parent (tests/fork_server.py): the console stops here
    before its heavy imports (~0.18 CPU-s a launch; forked, ~0.13 with its end as the interpreter's), and as
    root it must start inside the read-only bind mount's own mount namespace, which `unshare` makes."""
    command = [sys.executable, "-m", "app", "--home", str(home), *extra]
    if read_only is not None and os.geteuid() == 0:
        command = ["unshare", "-m", "--propagation", "private", "sh", "-c", READ_ONLY, "sh", str(read_only)]
        command += [sys.executable, "-m", "app", "--home", str(home), *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def read_only_data(tmp_path: Path) -> Path:
    """A home whose data folder holds saved conversations and cannot be written: the folder."""
    data = ConsoleFolders.under(tmp_path).data
    ConversationStore(data / "conversations.sqlite3").close()
    if os.geteuid() == 0:
        probe = subprocess.run(
            [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                READ_ONLY,
                "sh",
                str(data),
                "touch",
                str(data / "probe"),
            ],
            capture_output=True,
            check=False,
        )
        if (
            shutil.which("unshare") is None
            or probe.returncode == 0
            or "Read-only" not in probe.stderr.decode()
        ):
            pytest.skip("no read-only bind mount here (unshare needs CAP_SYS_ADMIN)")
    else:
        data.chmod(0o555)
    return data


def test_a_read_only_data_folder_is_named_on_stderr_and_the_console_exits_1(
    tmp_path: Path, read_only_data: Path
) -> None:
    done = launch(tmp_path, read_only=read_only_data)
    assert done.returncode == 1, done.stderr
    assert f"cannot write to its data folder, {read_only_data}" in done.stderr
    assert "read-only file system" in done.stderr or "permission denied" in done.stderr
    assert "--home" in done.stderr  # what to do about it
    selftest = launch(tmp_path, "--selftest", read_only=read_only_data)
    assert selftest.returncode == 1 and '"ok": false' in selftest.stdout
    assert "cannot write to its data folder" in selftest.stdout


def test_a_file_where_the_data_folder_should_be(tmp_path: Path) -> None:
    data = ConsoleFolders.under(tmp_path).data
    data.parent.mkdir(parents=True, exist_ok=True)
    data.write_text("not a folder")
    done = launch(tmp_path)
    assert done.returncode == 1
    assert f"cannot write to its data folder, {data}" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_writable_home_has_nothing_to_say(tmp_path: Path) -> None:
    assert unwritable(ConsoleFolders.under(tmp_path)) is None
    assert not list(ConsoleFolders.under(tmp_path).data.iterdir())  # the check leaves nothing behind


def test_with_a_screen_the_reason_is_shown_in_a_message_box(
    qapp: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shown: list[str] = []
    monkeypatch.setattr("app.__main__.shows_windows", lambda: True)
    monkeypatch.setattr(
        "PySide6.QtWidgets.QMessageBox.critical", lambda _parent, _title, text: shown.append(text)
    )
    problem = "The console cannot write to its data folder, /x: read-only file system."
    assert cannot_start(parse_args([]), problem) == 1
    assert shown == [problem]
    assert problem in capsys.readouterr().err
