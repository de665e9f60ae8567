"""File > Profiles on a corporate network: the Proxy URL checked as it is typed, its password kept in the
keychain and shown masked, every failure (at Save, at Test connection, at activation) said on screen; after
Save the list and the key fields show what is now stored."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton
from pytestqt.qtbot import QtBot

from app.common.secrets import SERVICE
from app.core.profile import snippet_network
from app.services.session.profiles import Profile, migrate_proxy_passwords
from app.ui.main_window import MainWindow
from app.ui.settings.profiles_dialog import ProfilesDialog
from tests.api.loopback_proxy import loopback_proxy, page
from tests.gui.conftest import MemoryKeyring


def click(qtbot: QtBot, dialog: ProfilesDialog, name: str) -> None:
    qtbot.mouseClick(dialog.findChild(QPushButton, name), Qt.MouseButton.LeftButton)


def new_profile(console: MainWindow, qtbot: QtBot) -> ProfilesDialog:
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    click(qtbot, dialog, "add_profile")
    for name, text in (("name", "Corporate"), ("base_url", "https://127.0.0.1:9/v1")):
        dialog.fields[name].clear()
        qtbot.keyClicks(dialog.fields[name], text)
    return dialog


def test_a_proxy_url_without_a_scheme_is_completed_and_its_password_kept_in_the_keychain(
    console: MainWindow, qtbot: QtBot, memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    dialog = new_profile(console, qtbot)
    assert "http://proxy.example.com:8080" in dialog.fields["proxy"].placeholderText()
    qtbot.keyClicks(dialog.fields["proxy"], "alice:s3cret-pw@127.0.0.1:3128")
    assert dialog.proxy_hint.text() == "→ http://alice@127.0.0.1:3128 (password to the keychain)"
    dialog.fields["proxy"].editingFinished.emit()  # the person tabs out of the field: the password is masked
    assert dialog.fields["proxy"].text() == "http://alice@127.0.0.1:3128"
    assert dialog.fields["proxy_password"].text() == "s3cret-pw"
    assert dialog.fields["proxy_password"].echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(dialog.fields["api_key"], "sk-corporate-key-123456")
    click(qtbot, dialog, "save")
    assert dialog.result_label.text().startswith("✓ Saved")
    # Without reopening: the list names the profile, the fields say what is stored.
    assert dialog.list.currentItem().text() == "Corporate"
    assert dialog.fields["proxy"].text() == "http://alice@127.0.0.1:3128"
    assert dialog.fields["proxy_password"].text() == ""
    assert dialog.fields["proxy_password"].placeholderText() == "stored in the keychain"
    assert dialog.fields["api_key"].placeholderText() == "stored in the keychain"
    assert dialog.profile is not None
    profile_id = dialog.profile.id
    assert memory_keyring.secrets[(SERVICE, f"{profile_id}:proxy_password")] == "s3cret-pw"
    saved = next(tmp_path.rglob("settings.json")).read_text()
    assert "s3cret-pw" not in saved and '"proxy": "http://alice@127.0.0.1:3128"' in saved
    stored = console.session.profiles.get(profile_id)
    assert stored is not None
    assert console.session.settings_for(stored).proxy == "http://alice:s3cret-pw@127.0.0.1:3128"


def test_a_proxy_url_that_cannot_be_one_is_said_at_save_and_at_test(
    console: MainWindow, qtbot: QtBot
) -> None:
    dialog = new_profile(console, qtbot)
    qtbot.keyClicks(dialog.fields["proxy"], "socks4://proxy:1080")
    assert dialog.proxy_hint.text() == "✗ “socks4://” is not a proxy scheme (http, https, socks5)"
    click(qtbot, dialog, "save")
    assert dialog.result_label.text().startswith("✗ Proxy URL: “socks4://” is not a proxy scheme")
    click(qtbot, dialog, "test")
    assert dialog.result_label.text().startswith("✗ Proxy URL:")


def test_test_connection_names_the_proxy_that_wants_credentials(console: MainWindow, qtbot: QtBot) -> None:
    dialog = new_profile(console, qtbot)
    qtbot.keyClicks(dialog.fields["api_key"], "sk-corporate-key-123456")
    auth = page("407 Proxy Authentication Required", "sign in", 'proxy-authenticate: Basic realm="c"\r\n')
    with loopback_proxy(auth) as proxy:
        qtbot.keyClicks(dialog.fields["proxy"], proxy.url.removeprefix("http://"))
        click(qtbot, dialog, "test")
        qtbot.waitUntil(lambda: dialog.result_label.text() != "Testing…", timeout=10000)
    text = dialog.result_label.text()
    assert text.startswith(f"✗ The proxy {proxy.url.removeprefix('http://')} asks for credentials"), text


def test_a_profile_whose_proxy_cannot_be_used_says_so_when_it_is_chosen(
    console: MainWindow, qtbot: QtBot
) -> None:
    session = console.session
    session.profiles.save(
        Profile(id="p-bad", name="Hand-edited", base_url="https://h/v1", proxy="ftp://p:21")
    )
    session.tasks.start("activate", session.activate("p-bad"))
    qtbot.waitUntil(lambda: session.state == "error", timeout=5000)
    assert "not a proxy scheme" in session.detail and "File > Profiles" in session.detail
    assert "“Hand-edited” cannot connect" in console.notice.label.text()  # on screen, not only in the log
    assert session.client is None
    playground = console.playground
    playground.message.setPlainText("hello")
    playground.send()
    qtbot.waitUntil(
        lambda: bool(playground.service.turns) and playground.service.turns[-1].status == "failed"
    )
    assert playground.service.turns[-1].error.startswith("No connection: “ftp://” is not a proxy scheme")


def test_an_old_console_ini_with_a_proxy_password_is_moved_to_the_keychain(
    console: MainWindow, qtbot: QtBot, memory_keyring: MemoryKeyring
) -> None:
    session = console.session
    session.profiles.save(
        Profile(id="p-old", name="Old", base_url="https://h/v1", proxy="http://bob:hunter2@p:3128")
    )
    migrate_proxy_passwords(session.profiles, session.secrets)
    migrated = session.profiles.get("p-old")
    assert migrated is not None and migrated.proxy == "http://bob@p:3128"
    assert memory_keyring.secrets[(SERVICE, "p-old:proxy_password")] == "hunter2"
    assert session.settings_for(migrated).proxy == "http://bob:hunter2@p:3128"


def test_get_code_names_the_variables_that_hold_the_proxy_s_secrets(
    console: MainWindow, qtbot: QtBot, tmp_path: Path
) -> None:
    session = console.session
    bundle = tmp_path / "corp-ca.pem"
    profile = Profile(
        id="p-code", name="Corp", base_url="https://h/v1", proxy="http://bob@p:3128", ca_bundle=str(bundle)
    )
    session.profiles.save(profile)
    session.secrets.set("p-code", "proxy_password", "hunter2")
    session.profile = profile
    network = snippet_network(session.profile, session.secrets)
    assert network.proxy == "http://bob@p:3128" and network.proxy_password_env == "SERVICE_PROXY_PASSWORD"
    assert network.ca_bundle == str(bundle) and network.passphrase_env == ""
    snippets = console.playground.code_snippets()
    assert all("hunter2" not in text for text in snippets.values())
    assert '--proxy-user "bob:$SERVICE_PROXY_PASSWORD"' in snippets["curl"]
