"""File > Profiles on a corporate network: the Proxy URL checked as it is typed, its password kept in the
keychain and shown masked, every failure (at Save, at Test connection, at activation) said on screen; after
Save the list and the key fields show what is now stored."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from app.common.secrets import SERVICE
from app.services.session.profiles import Profile
from tests.api.loopback_proxy import loopback_proxy, page


def click(qtbot, dialog, name: str) -> None:
    qtbot.mouseClick(dialog.findChild(QPushButton, name), Qt.MouseButton.LeftButton)


def new_profile(console, qtbot):
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    click(qtbot, dialog, "add_profile")
    for name, text in (("name", "Corporate"), ("base_url", "https://127.0.0.1:9/v1")):
        dialog.fields[name].clear()
        qtbot.keyClicks(dialog.fields[name], text)
    return dialog


def test_a_proxy_url_without_a_scheme_is_completed_and_its_password_kept_in_the_keychain(
    console, qtbot, memory_keyring, tmp_path
) -> None:
    dialog = new_profile(console, qtbot)
    assert "http://proxy.example.com:8080" in dialog.fields["proxy"].placeholderText()
    qtbot.keyClicks(dialog.fields["proxy"], "alice:s3cret-pw@127.0.0.1:3128")
    assert dialog.proxy_hint.text() == "→ http://alice@127.0.0.1:3128 (its password goes to the keychain)"
    qtbot.keyClicks(dialog.fields["api_key"], "sk-corporate-key-123456")
    click(qtbot, dialog, "save")
    assert dialog.result_label.text().startswith("✓ Saved")
    # Without reopening: the list names the profile, the fields say what is stored.
    assert dialog.list.currentItem().text() == "Corporate"
    assert dialog.fields["proxy"].text() == "http://alice@127.0.0.1:3128"
    assert dialog.fields["proxy_password"].text() == ""
    assert dialog.fields["proxy_password"].placeholderText() == "stored in the keychain"
    assert dialog.fields["api_key"].placeholderText() == "stored in the keychain"
    profile_id = dialog.profile.id
    assert memory_keyring.secrets[(SERVICE, f"{profile_id}:proxy_password")] == "s3cret-pw"
    console.session.profiles.settings.sync()
    ini = next(tmp_path.rglob("console.ini")).read_text()
    assert "s3cret-pw" not in ini and "proxy=http://alice@127.0.0.1:3128" in ini
    stored = console.session.profiles.get(profile_id)
    assert console.session.settings_for(stored).proxy == "http://alice:s3cret-pw@127.0.0.1:3128"


def test_a_proxy_url_that_cannot_be_one_is_said_at_save_and_at_test(console, qtbot) -> None:
    dialog = new_profile(console, qtbot)
    qtbot.keyClicks(dialog.fields["proxy"], "socks4://proxy:1080")
    assert dialog.proxy_hint.text().startswith("✗ “socks4://” is not a proxy scheme")
    click(qtbot, dialog, "save")
    assert dialog.result_label.text().startswith("✗ Proxy URL: “socks4://” is not a proxy scheme")
    click(qtbot, dialog, "test")
    assert dialog.result_label.text().startswith("✗ Proxy URL:")


def test_test_connection_names_the_proxy_that_wants_credentials(console, qtbot) -> None:
    dialog = new_profile(console, qtbot)
    qtbot.keyClicks(dialog.fields["api_key"], "sk-corporate-key-123456")
    auth = page("407 Proxy Authentication Required", "sign in", 'proxy-authenticate: Basic realm="c"\r\n')
    with loopback_proxy(auth) as proxy:
        qtbot.keyClicks(dialog.fields["proxy"], proxy.url.removeprefix("http://"))
        click(qtbot, dialog, "test")
        qtbot.waitUntil(lambda: dialog.result_label.text() != "Testing…", timeout=10000)
    text = dialog.result_label.text()
    assert text.startswith(f"✗ The proxy {proxy.url.removeprefix('http://')} asks for credentials"), text


def test_a_profile_whose_proxy_cannot_be_used_says_so_when_it_is_chosen(console, qtbot) -> None:
    session = console.session
    session.profiles.save(
        Profile(id="p-bad", name="Hand-edited", base_url="https://h/v1", proxy="ftp://p:21")
    )
    session.tasks.start("activate", session.activate("p-bad"))
    qtbot.waitUntil(lambda: session.state == "error", timeout=5000)
    assert "not a proxy scheme" in session.detail and "File > Profiles" in session.detail
    assert session.client is None  # Send says there is no connection, and the toolbar says why


def test_an_old_console_ini_with_a_proxy_password_is_moved_to_the_keychain(
    console, qtbot, memory_keyring
) -> None:
    session = console.session
    session.profiles.save(
        Profile(id="p-old", name="Old", base_url="https://h/v1", proxy="http://bob:hunter2@p:3128")
    )
    session.migrate_proxy_passwords()
    assert session.profiles.get("p-old").proxy == "http://bob@p:3128"
    assert memory_keyring.secrets[(SERVICE, "p-old:proxy_password")] == "hunter2"
    assert session.settings_for(session.profiles.get("p-old")).proxy == "http://bob:hunter2@p:3128"
