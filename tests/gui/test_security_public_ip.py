"""Your public IP as echo services see it, beside the IP the service sees, with echo services on loopback."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QPlainTextEdit, QPushButton
from pytestqt.qtbot import QtBot

from app.ui.security.tab import SecurityTab
from tests.api.servers import echo_server
from tests.cli.cli_support import ROOT, environment
from tests.fork_server import ForkServer
from tests.gui.reach import child, profile_of


def set_services(qtbot: QtBot, tab: SecurityTab, ipv4: str, ipv6: str) -> None:
    """The person opens Echo services…, types one service per family, and saves."""

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        assert dialog is not None
        for name, url in (("echo_ipv4", ipv4), ("echo_ipv6", ipv6)):
            edit = child(dialog, QPlainTextEdit, name)
            edit.clear()
            qtbot.keyClicks(edit, url)
        save = child(dialog, QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
        qtbot.mouseClick(save, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, fill)
    qtbot.mouseClick(tab.findChild(QPushButton, "echo_settings"), Qt.MouseButton.LeftButton)


@pytest.fixture
def hosted(tab: SecurityTab, monkeypatch: pytest.MonkeyPatch) -> SecurityTab:
    """The same server reached as a hosted profile would be: echo services are asked for those only."""
    monkeypatch.setattr(profile_of(tab.session), "kind", "remote")
    tab.your_ip.allow_lookup(tab.public_ip.allowed)
    return tab


def test_the_sandbox_profile_never_asks_the_echo_services(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SERVICE_CONSOLE_ECHO")
    asked: list[str] = []
    with echo_server("127.0.0.1") as v4:
        set_services(qtbot, tab, v4, "")
        button = child(tab, QPushButton, "look_up")
        assert not button.isEnabled() and "Not for the local sandbox" in button.toolTip()
        tab.public_ip.lookup()  # even when asked in code
        tab.public_ip.maybe_lookup()
        with urllib.request.urlopen(v4) as answer:  # the service was up all along, and only this asked it
            asked.append(answer.read().decode())
    assert tab.public_ip.text == "" or "Not asked for the local sandbox" in tab.public_ip.text
    assert tab.public_ip.answers == {} and asked == ["127.0.0.1"]


def test_look_up_shows_both_families_and_why_they_differ(
    qtbot: QtBot, hosted: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = hosted
    monkeypatch.delenv("SERVICE_CONSOLE_ECHO")
    with echo_server("127.0.0.1") as v4, echo_server("::1") as v6:
        set_services(qtbot, tab, v4, v6)
        assert tab.public_ip.echo.ipv4 == [v4] and tab.public_ip.echo.ipv6 == [v6]
        qtbot.mouseClick(tab.findChild(QPushButton, "look_up"), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Public echo services see" in tab.your_ip.public_ip_label.text())
    text = tab.your_ip.public_ip_label.text()
    assert "IPv4 <b>127.0.0.1</b>" in text and "IPv6 <b>::1</b>" in text
    assert "They differ from the 198.51.100.7 the service sees" in text and "proxy, VPN or NAT" in text


def test_echo_services_saved_in_the_window_are_what_the_command_line_reads(
    qtbot: QtBot, tab: SecurityTab, tmp_path: Path, python_m: ForkServer
) -> None:
    """One settings file for both: what the person saves in Echo services… is what `service-console
    settings` shows, read in another process from the file alone."""
    set_services(qtbot, tab, "https://v4.echo.example", "https://v6.echo.example")
    qtbot.waitUntil(lambda: tab.public_ip.echo.ipv4 == ["https://v4.echo.example"])
    argv = ["-m", "app", "settings", "show", "echo", "--home", str(tmp_path)]
    done = python_m.run(argv, env=environment(), cwd=ROOT, timeout=60)
    assert done.code == 0, done.err
    shown = json.loads(done.out)
    assert shown["ipv4"] == ["https://v4.echo.example"] and shown["ipv6"] == ["https://v6.echo.example"]


def test_never_asked_on_their_own_for_the_sandbox_or_in_tests(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab.public_ip.maybe_lookup()  # the local sandbox: nothing to look up, nothing said
    assert tab.public_ip.text == ""
    assert tab.public_ip.echo.enabled is False  # SERVICE_CONSOLE_ECHO=off, as in every test
    monkeypatch.delenv("SERVICE_CONSOLE_ECHO")
    assert tab.public_ip.echo.enabled is False  # off until the admin switches echo services on
    tab.public_ip.settings.update(lambda saved: setattr(saved.echo, "enabled", True))
    assert tab.public_ip.echo.enabled is True


def test_a_hosted_profile_is_not_looked_up_until_echo_services_are_switched_on(
    qtbot: QtBot, tab: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Choosing a hosted profile sends the admin's address to no third party by itself."""
    from app.services.session.profiles import Profile

    monkeypatch.delenv("SERVICE_CONSOLE_ECHO")
    session = tab.public_ip.session
    monkeypatch.setattr(session, "profile", Profile(id="hosted", name="Hosted", base_url="https://h/v1"))
    monkeypatch.setattr(session, "state", "ok")
    asked: list[bool] = []
    monkeypatch.setattr(tab.public_ip, "lookup", lambda: asked.append(True))
    tab.public_ip.maybe_lookup()
    assert asked == [] and tab.public_ip.text == "Public IP lookup is off (Echo services…)."
    tab.public_ip.settings.update(lambda saved: setattr(saved.echo, "enabled", True))
    tab.public_ip.maybe_lookup()
    assert asked == [True]


def test_an_echo_service_that_does_not_answer_is_said_plainly(
    qtbot: QtBot, hosted: SecurityTab, monkeypatch: pytest.MonkeyPatch
) -> None:
    tab = hosted
    buttons = [child(tab, QPushButton, name) for name in ("look_up", "echo_settings")]
    with echo_server("127.0.0.1", body="<html>sign in</html>") as portal:
        set_services(qtbot, tab, portal, "")
        qtbot.wait(50)  # the tab laid out again after the dialog
        before = [button.mapTo(tab, button.rect().topLeft()) for button in buttons]
        qtbot.mouseClick(tab.findChild(QPushButton, "look_up"), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Public echo services see" in tab.your_ip.public_ip_label.text())
    label = tab.your_ip.public_ip_label
    assert label.text() == "Public echo services see: IPv4: none."  # short; the tooltip says why
    assert "127.0.0.1: answered something that is not an address" in label.toolTip()
    assert [button.mapTo(tab, button.rect().topLeft()) for button in buttons] == before  # nothing jumped
    assert "IPv6" not in tab.your_ip.public_ip_label.text()  # no IPv6 service set: not asked, not mentioned
