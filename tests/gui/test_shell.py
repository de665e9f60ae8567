"""The shell: first launch lands on the sandbox, profiles, the connection indicator, settings, errors."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton
from pytestqt.qtbot import QtBot

from app.services.session.profiles import SANDBOX_ID
from app.ui.main_window import MainWindow
from tests.gui.conftest import MemoryKeyring
from tests.gui.reach import child, client_of, profile_of


def test_first_launch_makes_the_sandbox_profile_and_connects(console: MainWindow) -> None:
    session = console.session
    assert session.profiles.current_id() == SANDBOX_ID
    assert console.profile_box.currentText() == "Local sandbox"
    assert "Connected" in console.indicator.text()
    assert session.secrets.source(SANDBOX_ID, "api_key") == "keychain"


def test_indicator_says_why_when_blocked(console: MainWindow, qtbot: QtBot) -> None:
    session = console.session
    qtbot.keyClicks(console.simulated_ip, "203.0.113.50")
    qtbot.keyClick(console.simulated_ip, Qt.Key.Key_Return)
    assert client_of(session).transport.settings.played_ip == "203.0.113.50"  # the Playground's requests
    assert client_of(session).transport.settings.forwarded_for == "127.0.0.1"  # the console's own

    async def lock() -> None:
        await client_of(session).allowlists.add("198.51.100.0/24")
        await client_of(session).allowlists.set_enabled(True, force=True)

    session.tasks.start("lock", lock())
    qtbot.waitUntil(lambda: not session.tasks.running("lock"))
    qtbot.mouseClick(console.findChild(QPushButton, "check_connection"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Blocked" in console.indicator.text())
    assert "203.0.113.50" in console.indicator.toolTip()


def test_bad_key_and_server_down_are_explained(console: MainWindow, qtbot: QtBot) -> None:
    session = console.session
    client_of(session).transport.settings.api_key = "sk-wrong"
    session.tasks.start("check", session.check_connection())
    qtbot.waitUntil(lambda: "Bad key" in console.indicator.text())
    session.sandbox.stop()
    client_of(session).transport.settings.api_key = "sk-whatever"
    session.tasks.start("check", session.check_connection())
    qtbot.waitUntil(lambda: "Down" in console.indicator.text(), timeout=15000)
    assert "reach" in console.indicator.toolTip() or "lost" in console.indicator.toolTip()


def test_add_a_remote_profile_with_key_in_keychain(
    console: MainWindow, qtbot: QtBot, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    dialog = console.open_settings()
    qtbot.mouseClick(dialog.findChild(QPushButton, "add_profile"), Qt.MouseButton.LeftButton)
    fields = dialog.fields
    fields["name"].clear()
    qtbot.keyClicks(fields["name"], "Hosted")
    fields["base_url"].clear()
    qtbot.keyClicks(fields["base_url"], console.session.sandbox.base_url)
    qtbot.keyClicks(fields["org_id"], profile_of(console.session).org_id)
    qtbot.keyClicks(fields["api_key"], "sk-proj_x-hosted-secret-value-123")
    qtbot.mouseClick(dialog.findChild(QPushButton, "save"), Qt.MouseButton.LeftButton)
    assert "keychain" in dialog.result_label.text()
    profile = next(p for p in console.session.profiles.all() if p.name == "Hosted")
    assert (
        memory_keyring.secrets[("service-console", f"{profile.id}:api_key")]
        == "sk-proj_x-hosted-secret-value-123"
    )
    saved = (tmp_path / "config" / "settings.json").read_text()
    assert "hosted-secret" not in saved and "Hosted" in saved


def test_test_connection_reports_a_refused_key(console: MainWindow, qtbot: QtBot) -> None:
    dialog = console.open_settings()
    qtbot.keyClicks(dialog.fields["api_key"], "sk-wrong-key-value")
    qtbot.mouseClick(dialog.findChild(QPushButton, "test"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "✗" in dialog.result_label.text() or "✓" in dialog.result_label.text())
    assert "refused" in dialog.result_label.text()


def test_bad_base_url_is_a_clear_message(console: MainWindow, qtbot: QtBot) -> None:
    dialog = console.open_settings()
    qtbot.mouseClick(dialog.findChild(QPushButton, "add_profile"), Qt.MouseButton.LeftButton)
    dialog.fields["base_url"].setText("not a url")
    qtbot.mouseClick(dialog.findChild(QPushButton, "test"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "✗" in dialog.result_label.text())
    assert "not a URL" in dialog.result_label.text()


def test_the_message_bus_carries_a_level_an_error_shows_a_notice(console: MainWindow, qtbot: QtBot) -> None:
    from app.services.session.messages import Message, MessageLevel

    posted: list[Message] = []
    console.session.bus.posted.connect(posted.append)
    console.session.bus.info("Saved.")
    assert not console.notice.isVisible() and console.statusBar().currentMessage() == "Saved."
    console.session.bus.error("The turn could not be saved: disk full.")
    assert posted == [Message(MessageLevel.INFO, "Saved."), Message(MessageLevel.ERROR, posted[1].text)]
    assert console.notice.isVisible() and "disk full" in child(console.notice, QLabel, "notice_text").text()
