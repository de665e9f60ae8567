"""Your public IP as echo services see it, beside the IP the service sees, with echo services on loopback."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QPlainTextEdit, QPushButton

from tests.api.servers import echo_server


def set_services(qtbot, tab, ipv4: str, ipv6: str) -> None:
    """The person opens Echo services…, types one service per family, and saves."""

    def fill() -> None:
        dialog = QApplication.activeModalWidget()
        for name, url in (("echo_ipv4", ipv4), ("echo_ipv6", ipv6)):
            edit = dialog.findChild(QPlainTextEdit, name)
            edit.clear()
            qtbot.keyClicks(edit, url)
        save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
        qtbot.mouseClick(save, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, fill)
    qtbot.mouseClick(tab.findChild(QPushButton, "echo_settings"), Qt.MouseButton.LeftButton)


def test_look_up_shows_both_families_and_why_they_differ(qtbot, tab, monkeypatch) -> None:
    monkeypatch.delenv("SERVICE_CONSOLE_ECHO")
    with echo_server("127.0.0.1") as v4, echo_server("::1") as v6:
        set_services(qtbot, tab, v4, v6)
        assert tab.public_ip.echo.ipv4 == [v4] and tab.public_ip.echo.ipv6 == [v6]
        qtbot.mouseClick(tab.findChild(QPushButton, "look_up"), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Public echo services see" in tab.your_ip.public_ip_label.text())
    text = tab.your_ip.public_ip_label.text()
    assert "IPv4 <b>127.0.0.1</b>" in text and "IPv6 <b>::1</b>" in text
    assert "They differ from the 198.51.100.7 the service sees" in text and "proxy, VPN or NAT" in text


def test_never_asked_on_their_own_for_the_sandbox_or_in_tests(qtbot, tab, monkeypatch) -> None:
    tab.public_ip.maybe_lookup()  # the local sandbox: nothing to look up, nothing said
    assert tab.public_ip.text == ""
    assert tab.public_ip.echo.enabled is False  # SERVICE_CONSOLE_ECHO=off, as in every test
    monkeypatch.delenv("SERVICE_CONSOLE_ECHO")
    assert tab.public_ip.echo.enabled is False  # off until the admin switches echo services on
    tab.public_ip.settings.setValue("echo/enabled", True)
    assert tab.public_ip.echo.enabled is True


def test_a_hosted_profile_is_not_looked_up_until_echo_services_are_switched_on(
    qtbot, tab, monkeypatch
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
    tab.public_ip.settings.setValue("echo/enabled", True)
    tab.public_ip.maybe_lookup()
    assert asked == [True]


def test_an_echo_service_that_does_not_answer_is_said_plainly(qtbot, tab, monkeypatch) -> None:
    with echo_server("127.0.0.1", body="<html>sign in</html>") as portal:
        set_services(qtbot, tab, portal, "")
        qtbot.mouseClick(tab.findChild(QPushButton, "look_up"), Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "Public echo services see" in tab.your_ip.public_ip_label.text())
    assert (
        "IPv4: none — 127.0.0.1: answered something that is not an address"
        in tab.your_ip.public_ip_label.text()
    )
    assert "IPv6" not in tab.your_ip.public_ip_label.text()  # no IPv6 service set: not asked, not mentioned
