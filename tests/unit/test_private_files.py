"""Files only their owner may read (Linux and macOS): the sandbox's store, the console's conversations,
settings, log and exports are 0600 in 0700 folders, whatever the umask a person runs them under."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api.admin import Entry
from app.common.private import private_dir
from app.core.playground.conversation_store import ConversationStore
from app.core.security.files import write_file
from app.sandbox.store.aggregates import Store
from tests.fork_server import ForkServer

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes; Windows relies on the profile's ACL")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def open_umask() -> Iterator[None]:
    """A person's usual umask (022): new files would be 0644 and folders 0755 if nothing tightened them."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def modes(root: Path) -> dict[str, int]:
    found = {str(p.relative_to(root)): stat.S_IMODE(p.stat().st_mode) for p in root.rglob("*")}
    return {".": stat.S_IMODE(root.stat().st_mode), **found}


def assert_private(root: Path) -> None:
    loose = {
        name: oct(mode)
        for name, mode in modes(root).items()
        if mode != (0o700 if (root / name).is_dir() else 0o600)
    }
    assert loose == {}, f"readable by others: {loose}"


def test_the_console_leaves_only_private_files(tmp_path: Path, python_m: ForkServer) -> None:
    """The real console, started under umask 022 over a home an older version left 0755/0644: forked from
    the preloaded parent (tests/fork_server.py) with that umask, as `sh -c 'umask 022 && exec python ...'`
    would start it."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "console.ini").write_text("[General]\n")
    for path in (home, home / "config", home / "config" / "console.ini"):
        path.chmod(0o644 if path.is_file() else 0o755)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
    done = python_m.run(
        ["-m", "app", "--selftest", "--home", str(home)],
        env=environment,
        timeout=120,
        stdin=0,
        umask=0o022,
        finalize=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    names = set(modes(home))
    # The saved conversations' file is made by the first save (the selftest saves none): see
    # test_stores_and_exports_are_private_under_any_umask for its modes.
    assert {"config/settings.json", "config/console.ini.migrated", "logs/console.log"} <= names
    assert "data/sandbox/sandbox.sqlite3" in names
    for folder in ("config", "data", "logs"):  # --home itself is the person's: only what is made in it
        assert_private(home / folder)


@pytest.mark.usefixtures("open_umask")
def test_stores_and_exports_are_private_under_any_umask(tmp_path: Path) -> None:
    """Opened as a library (tests, the dashboard), without the entry points' umask."""
    store = Store(tmp_path / "sandbox" / "sandbox.sqlite3")
    conversations = ConversationStore(tmp_path / "data" / "conversations.sqlite3")
    try:
        conversations.create("a conversation", "m")  # a write: SQLite's -wal and -shm files appear
    finally:
        store.close()
        conversations.close()
    export = tmp_path / "exports" / "list.csv"
    export.parent.mkdir()
    write_file(export, [Entry(id="ipal_1", cidr="203.0.113.0/24")], {"scope": "organization"})
    assert stat.S_IMODE(export.stat().st_mode) == 0o600
    for folder in ("sandbox", "data"):
        assert_private(tmp_path / folder)
    assert stat.S_IMODE((tmp_path / "exports").stat().st_mode) == 0o755  # a person's own folder: untouched


@pytest.mark.usefixtures("open_umask")
def test_private_dir_tightens_only_its_own_folder(tmp_path: Path) -> None:
    parent = tmp_path / "config"
    made = private_dir(parent / "service-console")
    assert stat.S_IMODE(made.stat().st_mode) == 0o700
    assert stat.S_IMODE(parent.stat().st_mode) == 0o755
