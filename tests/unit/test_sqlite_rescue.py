"""A damaged SQLite file is moved aside with its companions and a timestamp; a sound one is left alone."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from app.common.sqlite_rescue import check_early, set_aside_if_damaged
from tests.fork_server import ForkServer

ROOT = Path(__file__).resolve().parents[2]


def test_a_sound_store_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    assert set_aside_if_damaged(path) is None and path.is_file()
    assert set_aside_if_damaged(tmp_path / "missing.sqlite3") is None


def test_a_damaged_store_moves_aside_with_its_companions(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    path.write_bytes(os.urandom(4096))
    (tmp_path / "store.sqlite3-wal").write_bytes(b"wal")
    aside = set_aside_if_damaged(path, now=0)
    assert aside is not None and aside.problem == "file is not a database"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "store.sqlite3.damaged-19700101-000000",
        "store.sqlite3.damaged-19700101-000000-wal",
    ]
    text = aside.explain("The store", "it starts empty")
    assert str(aside.moved_to) in text and "Nothing was deleted" in text and ".recover" in text


def test_a_check_begun_early_gives_the_same_verdicts(tmp_path: Path) -> None:
    """check_early reads the file on a thread; set_aside_if_damaged takes its verdict, once."""
    sound, damaged = tmp_path / "sound.sqlite3", tmp_path / "damaged.sqlite3"
    with sqlite3.connect(sound) as db:
        db.execute("CREATE TABLE t (x)")
    db.close()
    damaged.write_bytes(os.urandom(4096))
    for path in (sound, damaged, tmp_path / "missing.sqlite3"):
        check_early(path)
    assert set_aside_if_damaged(sound) is None and sound.is_file()
    aside = set_aside_if_damaged(damaged, now=0)
    assert aside is not None and aside.problem == "file is not a database" and not damaged.exists()
    assert set_aside_if_damaged(tmp_path / "missing.sqlite3") is None
    damaged.write_bytes(os.urandom(4096))  # damaged after the early verdict was taken: checked again
    assert set_aside_if_damaged(damaged, now=60) is not None


def test_the_selftest_exits_over_a_damaged_sandbox_store(tmp_path: Path, python_m: ForkServer) -> None:
    """The console's selftest, forked from the preloaded parent (tests/fork_server.py)."""
    store = tmp_path / "data" / "sandbox" / "sandbox.sqlite3"
    store.parent.mkdir(parents=True)
    store.write_bytes(os.urandom(20_000))
    done = python_m.run(
        ["-m", "app", "--selftest", "--home", str(tmp_path)],
        env={**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"},
        timeout=60,
        stdin=0,
        finalize=True,
    )
    assert done.returncode == 0 and '"ok": true' in done.stdout, done.stdout + done.stderr
