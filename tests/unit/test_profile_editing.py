"""Saving, removing and testing profiles as the Profiles dialog asks, without widgets: the checks stop a
profile before anything is stored, the profile is stored before its secrets, and a refused secret leaves
the profile kept."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from keyring.backends.fail import Keyring as FailKeyring

from app.bootstrap import Paths, make_session
from app.common.secrets import SERVICE, SecretStore
from app.core.profile import Profile
from app.core.profile_form import ProfileForm
from app.services.session.profile_editing import KeptProxy, ProfileEditor
from app.services.session.session import ConsoleSession
from tests.gui.conftest import MemoryKeyring


@pytest.fixture
def keychain() -> MemoryKeyring:
    return MemoryKeyring()


@pytest.fixture
def session(tmp_path: Path, keychain: MemoryKeyring) -> Iterator[ConsoleSession]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield make_session(Paths.under(tmp_path), SecretStore(keychain), interactive=False)
    for handler in set(root.handlers) - set(handlers):  # the session's log file, as the console writes it
        root.removeHandler(handler)
        handler.close()
    root.setLevel(level)


def form(name: str = "Hosted", **texts: str) -> ProfileForm:
    secrets = {
        key: texts.pop(key)
        for key in list(texts)
        if key in ("api_key", "admin_key", "client_key_password", "proxy_password")
    }
    return ProfileForm(
        texts={"name": name, "base_url": "https://api.example.org/v1", **texts}, secrets=secrets
    )


def no_row(_profile: Profile) -> None:
    """The dialog renames the profile's row here; nothing to show without one."""


def test_a_profile_and_its_key_are_kept(session: ConsoleSession, keychain: MemoryKeyring) -> None:
    editor = ProfileEditor(session)
    outcome = editor.save(Profile(id="p1", name=""), form(api_key="sk-typed-123"), no_row)
    assert outcome.ok and outcome.message == "✓ Saved; API key kept in the keychain."
    stored = session.profiles.get("p1")
    assert stored is not None and stored.base_url == "https://api.example.org/v1"
    assert keychain.secrets[(SERVICE, "p1:api_key")] == "sk-typed-123"
    assert [source.source for source in editor.secret_sources(stored)] == ["keychain", "none", "none", "none"]
    assert editor.stored_secret(stored, "api_key") == "sk-typed-123"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (form(name=""), "✗ A profile needs a name."),
        (form(proxy="socks4://p:1080"), "✗ Proxy URL: “socks4://” is not a proxy scheme"),
        (form(ca_bundle="/nowhere/ca.pem"), "✗ /nowhere/ca.pem is not a file."),
    ],
)
def test_a_profile_that_fails_a_check_stores_nothing(
    session: ConsoleSession, keychain: MemoryKeyring, typed: ProfileForm, said: str
) -> None:
    typed.secrets["api_key"] = "sk-typed-123"
    outcome = ProfileEditor(session).save(Profile(id="p1", name=""), typed, no_row)
    assert not outcome.ok and outcome.message.startswith(said)
    assert session.profiles.get("p1") is None and keychain.secrets == {}


def test_the_proxy_password_leaves_the_url_for_the_keychain(
    session: ConsoleSession, keychain: MemoryKeyring
) -> None:
    outcome = ProfileEditor(session).save(Profile(id="p1", name=""), form(proxy="bob:hunter2@p:3128"), no_row)
    assert outcome.ok and outcome.proxy == KeptProxy("http://bob@p:3128", "hunter2")
    stored = session.profiles.get("p1")
    assert stored is not None and stored.proxy == "http://bob@p:3128"
    assert keychain.secrets[(SERVICE, "p1:proxy_password")] == "hunter2"


def test_the_profile_is_stored_before_its_secrets_and_stays_when_the_keychain_refuses(
    session: ConsoleSession,
) -> None:
    session.secrets = SecretStore(FailKeyring())
    session.ask_session_only = lambda _question: False  # the person keeps the key out of this session too
    kept: list[bool] = []
    outcome = ProfileEditor(session).save(
        Profile(id="p1", name=""),
        form(api_key="sk-typed-123"),
        lambda profile: kept.append(session.profiles.get(profile.id) is not None),
    )
    assert kept == [True]
    assert not outcome.ok and outcome.message.startswith("✓ Profile saved. ✗ API key not saved:")
    assert "Set $SERVICE_API_KEY in the environment instead" in outcome.message
    assert session.profiles.get("p1") is not None


def test_the_sandbox_profile_stays_and_another_goes_with_its_keys(
    session: ConsoleSession, keychain: MemoryKeyring
) -> None:
    editor = ProfileEditor(session)
    sandbox = session.profiles.ensure_sandbox_profile()
    assert (
        editor.removal_refused(sandbox)
        == "The local sandbox profile stays; it is what the console falls back to."
    )
    editor.save(Profile(id="p1", name=""), form(api_key="sk-typed-123"), no_row)
    hosted = session.profiles.get("p1")
    assert hosted is not None and editor.removal_refused(hosted) is None
    editor.remove(hosted)
    assert session.profiles.get("p1") is None and keychain.secrets == {}


def test_a_connection_test_tries_the_typed_values_before_the_stored_ones(session: ConsoleSession) -> None:
    editor = ProfileEditor(session)
    editor.save(Profile(id="p1", name=""), form(api_key="sk-stored-123"), no_row)
    stored = session.profiles.get("p1")
    assert stored is not None
    test = editor.connection_test(
        stored, form(admin_key="sk-admin-typed", org_id="org_1", proxy="a:pw@p:3128")
    )
    assert test.settings is not None and test.org_id == "org_1"
    assert test.settings.api_key == "sk-stored-123" and test.settings.admin_key == "sk-admin-typed"
    assert test.settings.proxy == "http://a:pw@p:3128" and test.proxy == KeptProxy("http://a@p:3128", "pw")


def test_a_connection_test_that_cannot_be_made_says_why(session: ConsoleSession) -> None:
    said: list[str] = []
    editor = ProfileEditor(session)
    test = editor.connection_test(Profile(id="p1", name=""), form(proxy="socks4://p:1080"))
    assert test.settings is None
    editor.start_test(test, said.append)
    assert said == [test.problem] and said[0].startswith("✗ Proxy URL: “socks4://” is not a proxy scheme")


def test_the_engine_caption_is_the_sandbox_s_only(session: ConsoleSession) -> None:
    editor = ProfileEditor(session)
    sandbox = session.profiles.ensure_sandbox_profile()
    assert editor.engine_caption(Profile(id="p", name="n"), "local", "Local model") == ""
    assert (
        editor.engine_caption(sandbox, "simulated", "Simulated model")
        == "Now answering: the simulated model (offline, deterministic)."
    )
    assert editor.engine_caption(sandbox, "local", "Local model") == (
        "Now answering: the simulated model (offline, deterministic).\nAfter Save: Local model (the sandbox restarts with it)."
    )


def test_save_names_every_secret_it_stored(session: ConsoleSession) -> None:
    typed = form(
        api_key="sk-typed-123", admin_key="sk-admin-456", client_key_password="horse", proxy="a:pw@p:3128"
    )
    outcome = ProfileEditor(session).save(Profile(id="p1", name=""), typed, no_row)
    assert outcome.message == (
        "✓ Saved; API key, admin key, client key passphrase and proxy password kept in the keychain."
    )


def test_a_connection_test_tries_the_passphrase_typed_and_says_a_missing_file(
    session: ConsoleSession, tmp_path: Path
) -> None:
    editor = ProfileEditor(session)
    cert = tmp_path / "client.pem"
    cert.write_text("-----BEGIN CERTIFICATE-----\n")
    test = editor.connection_test(
        Profile(id="p1", name=""), form(client_cert=str(cert), client_key_password="typed horse")
    )
    assert test.settings is not None and test.settings.client_key_password == "typed horse"
    missing = str(tmp_path / "corp-ca.pem")
    test = editor.connection_test(Profile(id="p1", name=""), form(ca_bundle=missing))
    assert test.settings is None and test.problem == f"✗ {missing} is not a file."
