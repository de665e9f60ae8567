"""File > Profiles as a person types secrets: Test connection tries the passphrase typed before it is saved,
a Proxy URL with a password being typed does not widen the form past the dialog, and Save names every secret
it stored."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import load_pem_private_key
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QPushButton, QScrollArea, QToolButton
from pytestqt.qtbot import QtBot

from app.sandbox import SandboxConfig, SandboxServer
from app.sandbox.server import TlsOptions
from app.ui import screen_fit
from app.ui.main_window import MainWindow
from app.ui.settings.profiles_dialog import ProfilesDialog
from tests.gui.reach import child
from tests.proxies.servers import Pki, make_pki

PASSPHRASE = "correct horse"  # a test value, not a secret


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def mtls_sandbox(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SandboxServer]:
    config = SandboxConfig(
        data_dir=tmp_path_factory.mktemp("mtls"), trusted_proxies=[ipaddress.ip_network("127.0.0.1/32")]
    )
    with SandboxServer(config, tls=TlsOptions(pki.server_cert, pki.server_key, pki.ca)) as server:
        yield server


def click(qtbot: QtBot, dialog: ProfilesDialog, name: str) -> None:
    qtbot.mouseClick(dialog.findChild(QPushButton, name), Qt.MouseButton.LeftButton)


def new_profile(console: MainWindow, qtbot: QtBot, base_url: str) -> ProfilesDialog:
    dialog = console.open_settings()
    qtbot.addWidget(dialog)
    click(qtbot, dialog, "add_profile")
    qtbot.keyClicks(dialog.fields["name"], "Corporate")
    qtbot.keyClicks(dialog.fields["base_url"], base_url)
    return dialog


def test_test_connection_tries_the_passphrase_typed_before_save(
    console: MainWindow, qtbot: QtBot, pki: Pki, mtls_sandbox: SandboxServer, tmp_path: Path
) -> None:
    key = load_pem_private_key(pki.client_key.read_bytes(), None)
    encrypted = tmp_path / "client.key"
    encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(PASSPHRASE.encode()),
        )
    )
    assert mtls_sandbox.credentials is not None
    dialog = new_profile(console, qtbot, mtls_sandbox.base_url)
    for name, text in (
        ("ca_bundle", str(pki.ca)),
        ("client_cert", str(pki.client_cert)),
        ("client_key", str(encrypted)),
        ("client_key_password", PASSPHRASE),
        ("api_key", mtls_sandbox.credentials.api_key),
    ):
        qtbot.keyClicks(dialog.fields[name], text)
    click(qtbot, dialog, "test")
    qtbot.waitUntil(lambda: dialog.result_label.text() != "Testing…", timeout=10000)
    assert dialog.result_label.text().startswith("✓ Connected."), dialog.result_label.text()


def test_a_proxy_url_with_a_password_being_typed_does_not_widen_the_form(
    console: MainWindow, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(screen_fit, "available", lambda _widget: QRect(0, 0, 800, 600))
    dialog = new_profile(console, qtbot, "https://api.example.org/v1")
    dialog.show()
    qtbot.waitExposed(dialog)
    scroll = child(dialog, QScrollArea, "profile_fields")
    width = dialog.width()
    qtbot.keyClicks(
        dialog.fields["proxy"], "http://alice.example-user:a-rather-long-passw0rd@proxy.corp.example.com:3128"
    )
    qtbot.wait(50)  # the layout settles on the next pass of the event loop
    assert "(password to the keychain)" in dialog.proxy_hint.toolTip() + dialog.proxy_hint.text()
    assert dialog.width() == width
    assert not scroll.horizontalScrollBar().isVisible()
    browse = child(dialog, QToolButton, "browse_ca_bundle")
    assert browse.width() >= browse.sizeHint().width()  # "Browse…", not "Brow"
    assert browse.geometry().right() <= scroll.viewport().width()


def test_save_names_every_secret_it_kept(console: MainWindow, qtbot: QtBot) -> None:
    dialog = new_profile(console, qtbot, "https://api.example.org/v1")
    for name, text in (
        ("api_key", "sk-corporate-key-123456"),
        ("admin_key", "sk-admin-key-654321"),
        ("client_key_password", PASSPHRASE),
        ("proxy", "alice:pr0xy@127.0.0.1:3128"),
    ):
        qtbot.keyClicks(dialog.fields[name], text)
    click(qtbot, dialog, "save")
    assert dialog.result_label.text() == (
        "✓ Saved; API key, admin key, client key passphrase and proxy password kept in the keychain."
    )
