"""Keys go to the keychain only: never to the log, the settings file or any file the console wrote."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.common.secrets import KeychainUnavailable, SecretStore
from app.ui.main_window import MainWindow
from tests.fork_server import ForkServer
from tests.gui.reach import client_of, profile_of


def secret_of(key: str) -> str:
    """The random part of a sandbox key, sk-[admin-]<owner id>-<token>: the token itself may hold '-'."""
    match = re.fullmatch(r"sk-(?:admin-)?[a-z]+_[0-9a-f]+-(?P<secret>[A-Za-z0-9_-]{32,})", key)
    assert match, "the sandbox's key format changed: update secret_of"
    return match["secret"]


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def test_no_key_in_any_file_the_console_wrote(console: MainWindow, qtbot: QtBot, tmp_path: Path) -> None:
    session = console.session
    settings = client_of(session).transport.settings
    keys = [key for key in (settings.api_key, settings.admin_key) if key]
    assert len(keys) == 2
    playground = console.playground
    playground.message.setPlainText("hello")
    playground.send()
    qtbot.waitUntil(
        lambda: bool(playground.service.turns) and playground.service.turns[0].status == "completed"
    )
    import logging

    logging.getLogger("test").error("a careless line with %s", keys[0])
    for handler in logging.getLogger().handlers:
        handler.flush()
    written = files_under(tmp_path)
    assert any(path.name == "console.log" for path in written)
    assert any(path.name == "settings.json" for path in written)
    for path in written:
        content = path.read_bytes()
        for key in keys:
            assert key.encode() not in content and secret_of(key).encode() not in content, path


def test_no_keychain_refuses_unless_session_only() -> None:
    from keyring.backends.fail import Keyring as FailKeyring

    store = SecretStore(FailKeyring())
    assert "No keychain" in (store.problem() or "")
    with pytest.raises(KeychainUnavailable):
        store.set("p", "api_key", "sk-x")
    assert store.set("p", "api_key", "sk-x", session_only=True) == "session"
    assert store.get("p", "api_key") == "sk-x" and store.source("p", "api_key") == "session"


def test_environment_variable_is_read_when_no_key_is_stored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "sk-from-env")
    store = SecretStore()
    assert store.get("p", "api_key", "SERVICE_API_KEY") == "sk-from-env"
    assert store.source("p", "api_key", "SERVICE_API_KEY") == "environment"


def secret_service_running() -> bool:
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return False
    from keyring.backends import SecretService

    try:
        return SecretService.Keyring.priority > 0
    except Exception:
        return False


@pytest.fixture
def release_dbus_connections() -> Iterator[None]:
    """keyring's SecretService backend opens D-Bus connections it never closes; collect them here, in the
    test that made them, rather than let the ResourceWarning fail whichever later test the GC runs in."""
    yield
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"unclosed <socket\.socket .*dbus", ResourceWarning)
        gc.collect()


@pytest.mark.secret_service
@pytest.mark.xdist_group("secret_service")  # one keyring daemon: its tests run one after another
# keyring's SecretService backend leaves D-Bus connections to the GC, which may run inside either test.
@pytest.mark.filterwarnings(r"ignore:unclosed <socket\.socket .*dbus:ResourceWarning")
@pytest.mark.usefixtures("release_dbus_connections")
def test_key_reaches_the_real_secret_service_and_no_file(tmp_path: Path) -> None:
    if not secret_service_running():
        message = "needs a Secret Service: run the tests with 'bash packaging/dev.sh test'"
        if os.environ.get("CI"):
            pytest.fail(message)  # in CI the set-up must provide one: a skip would hide a broken install
        pytest.skip(message)
    from keyring.backends import SecretService

    backend = SecretService.Keyring()
    store = SecretStore(backend)
    assert store.problem() is None
    secret = "sk-proj_test-" + os.urandom(16).hex()
    assert store.set("profile-real", "api_key", secret) == "keychain"
    # Read it back through a fresh process, straight from the Secret Service.
    reader = (
        "import keyring.backends.SecretService as s; "
        "print(s.Keyring().get_password('service-console', 'profile-real:api_key'))"
    )
    result = subprocess.run([sys.executable, "-c", reader], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == secret
    for folder in (tmp_path, Path.home() / ".config", Path.home() / ".local" / "share" / "service-console"):
        for path in files_under(folder) if folder.exists() else []:
            if "keyrings" in path.parts:  # gnome-keyring's own encrypted store
                continue
            try:
                assert secret.encode() not in path.read_bytes(), path
            except OSError:
                pass
    store.delete("profile-real", "api_key")
    assert store.get("profile-real", "api_key") is None


def test_selftest_passes_with_no_keychain_at_all(tmp_path: Path, python_m: ForkServer) -> None:
    """The console's `python -m app --selftest`, forked from the preloaded parent (tests/fork_server.py): its
    keychain backend is chosen from the environment when first used, in the child."""
    env = {
        **os.environ,
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "QT_QPA_PLATFORM": "offscreen",
    }
    result = python_m.run(
        ["-m", "app", "--selftest"],
        timeout=120,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        stdin=0,
        finalize=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    (line,) = result.stdout.strip().splitlines()  # one JSON line, and Qt's plugin chatter went to the log
    assert "propagateSizeHints" not in result.stderr
    figures = json.loads(line)
    assert figures["ok"] and figures["answer_chars"] > 0 and figures["time_to_first_token_s"] >= 0
    assert figures["start_to_window_s"] > 0


def lock_default_collection() -> None:
    import secretstorage

    connection = secretstorage.dbus_init()
    secretstorage.get_default_collection(connection).lock()
    connection.close()


def unlock_again() -> None:
    """gnome-keyring's own way in a headless session: the password on stdin (as packaging/dev.sh does)."""
    subprocess.run(
        ["gnome-keyring-daemon", "--unlock", "--replace", "--components=secrets"],
        input=b"test-password",
        capture_output=True,
        timeout=30,
    )


@pytest.mark.secret_service
@pytest.mark.xdist_group("secret_service")  # one keyring daemon: its tests run one after another
# keyring's SecretService backend leaves D-Bus connections to the GC, which may run inside either test.
@pytest.mark.filterwarnings(r"ignore:unclosed <socket\.socket .*dbus:ResourceWarning")
@pytest.mark.usefixtures("release_dbus_connections")
def test_a_locked_keychain_is_said_plainly_and_loses_nothing(
    qloop: asyncio.AbstractEventLoop, qtbot: QtBot, tmp_path: Path
) -> None:
    """The console against a real, locked gnome-keyring (no prompter can open here: it stays locked)."""
    if not secret_service_running():
        if os.environ.get("CI"):
            pytest.fail("needs a Secret Service: run the tests with 'bash packaging/dev.sh test'")
        pytest.skip("needs a Secret Service")
    from keyring.backends import SecretService

    from app.bootstrap import Paths, make_session

    store = SecretStore(SecretService.Keyring())
    lock_default_collection()
    try:
        with pytest.raises(KeychainUnavailable, match="keychain is locked"):
            store.set("profile-locked", "api_key", "sk-proj_locked-" + os.urandom(8).hex())
        assert store.get("profile-locked", "api_key") is None and store.locked
        # The console on first launch: the embedded sandbox's keys need no keychain, so nothing is asked;
        # they are kept for this session only and the console works.
        session = make_session(Paths.under(tmp_path), store, interactive=False)
        asked: list[str] = []

        def say_yes(message: str) -> bool:  # a person who says Yes
            asked.append(message)
            return True

        session.ask_session_only = say_yes
        session.tasks.start("startup", session.activate())
        qtbot.waitUntil(lambda: session.state == "ok", timeout=15000)
        assert asked == []
        api_key = client_of(session).transport.settings.api_key
        assert api_key and store.source(profile_of(session).id, "api_key") == "session"
        for path in files_under(tmp_path):
            assert api_key.encode() not in path.read_bytes(), path
        session.sandbox.stop()
        # Without the session's copy and with the keychain still locked, the indicator says why.
        store._session.clear()
        client_of(session).transport.settings.api_key = client_of(session).transport.settings.admin_key = None
        store.get(profile_of(session).id, "api_key")
        task = session.tasks.start("check", session.check_connection())
        qtbot.waitUntil(task.done)
        assert session.state == "no_key" and "keychain is locked" in session.detail
        closing = asyncio.ensure_future(
            client_of(session).aclose()
        )  # its pooled sockets, as the app does on quit
        qtbot.waitUntil(closing.done)
    finally:
        unlock_again()
