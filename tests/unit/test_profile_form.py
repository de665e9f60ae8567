"""The Profiles form's rules without widgets: what the fields become, which files must exist, what the Proxy
URL is kept as, and the sentences the dialog shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.common.engine_kind import EngineKind
from app.common.proxy_url import BadProxyUrl
from app.core.profile import Profile
from app.core.profile_form import (
    ProfileForm,
    apply_form,
    form_problem,
    keep_proxy,
    keychain_refusal,
    missing_file,
    proxy_hint,
    secret_placeholder,
    secrets_sentence,
    split_proxy,
)


def test_the_form_fills_a_remote_profile_trimmed_and_its_models_split() -> None:
    profile = Profile(id="p1", name="")
    form = ProfileForm(
        texts={"name": " Production ", "base_url": "https://h/v1 ", "models": "a, b ,, c", "model_file": "x"},
        engine="local",
        first_byte_wait=90,
    )
    assert apply_form(profile, form) is profile
    assert profile.name == "Production" and profile.base_url == "https://h/v1"
    assert profile.models == ["a", "b", "c"] and profile.first_byte_wait == 90
    # The engine and its weights are the embedded sandbox's only.
    assert profile.engine == EngineKind.SIMULATED and profile.model_file == ""


def test_the_sandbox_keeps_the_address_and_ids_it_sets_itself() -> None:
    profile = Profile(id="local-sandbox", name="Local sandbox", kind="sandbox", base_url="http://127.0.0.1:5")
    texts = {
        "name": "Sandbox",
        "base_url": "(the embedded local sandbox)",
        "org_id": "typed",
        "model_file": "m",
    }
    apply_form(profile, ProfileForm(texts=texts, engine="local"))
    assert profile.base_url == "http://127.0.0.1:5" and profile.org_id == ""
    assert profile.name == "Sandbox" and profile.engine == EngineKind.LOCAL and profile.model_file == "m"


def test_a_profile_needs_a_name() -> None:
    assert form_problem(Profile(id="p", name="")) == "✗ A profile needs a name."
    assert form_problem(Profile(id="p", name="Named")) is None


def test_a_path_that_is_not_a_file_is_named_as_typed(tmp_path: Path) -> None:
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    profile = Profile(id="p", name="n", ca_bundle=str(bundle), client_key=str(tmp_path))
    assert missing_file(profile) == str(tmp_path)  # a folder is not a file
    profile.client_key = ""
    assert missing_file(profile) is None


def test_the_proxy_hint_says_what_is_used_or_why_not() -> None:
    assert proxy_hint("  ").text == ""
    assert (
        proxy_hint("alice:pw@127.0.0.1:3128").text
        == "→ http://alice@127.0.0.1:3128 (password to the keychain)"
    )
    refused = proxy_hint("socks4://proxy:1080")
    assert refused.text == "✗ “socks4://” is not a proxy scheme (http, https, socks5)"
    assert refused.tooltip.startswith("“socks4://” is not a proxy scheme")


def test_a_password_in_the_proxy_url_is_split_off() -> None:
    split = split_proxy("http://bob:hunter2@p:3128")
    assert split is not None and (split.public, split.password) == ("http://bob@p:3128", "hunter2")
    assert split_proxy("http://bob@p:3128") is None and split_proxy("ftp://p:21") is None


def test_the_proxy_is_kept_without_its_password_which_goes_to_the_field_unless_one_was_typed() -> None:
    profile = Profile(id="p", name="n", proxy="bob:hunter2@p:3128")
    assert keep_proxy(profile, typed_password="") == "hunter2"
    assert profile.proxy == "http://bob@p:3128"
    profile.proxy = "http://bob:hunter2@p:3128"
    assert keep_proxy(profile, typed_password="typed") == "" and profile.proxy == "http://bob@p:3128"
    assert keep_proxy(Profile(id="q", name="n"), "") == ""
    with pytest.raises(BadProxyUrl):
        keep_proxy(Profile(id="r", name="n", proxy="socks4://p:1080"), "")


def test_the_sentences_name_where_each_secret_comes_from() -> None:
    assert secret_placeholder("session", sandbox=True, env=None) == "minted by the console for this session"
    assert secret_placeholder("session", sandbox=False, env=None) == "kept for this session"
    assert secret_placeholder("environment", sandbox=False, env="SERVICE_API_KEY") == "from $SERVICE_API_KEY"
    said = secrets_sentence([("API key", "keychain"), ("Admin key", "none")], "No keychain.")
    assert said == (
        "⚠ No keychain. Secrets: API key: keychain; Admin key: none. "
        "Leave a secret field empty to keep what is stored."
    )
    refusal = keychain_refusal("API key", "The keychain is locked.", "SERVICE_API_KEY")
    assert refusal.startswith("✓ Profile saved. ✗ API key not saved: The keychain is locked.")
    assert "Set $SERVICE_API_KEY in the environment instead" in refusal
    assert "environment" not in keychain_refusal("Proxy password", "Locked.", None)


def test_websocket_mode_is_off_by_default_and_kept_as_the_form_says() -> None:
    profile = Profile(id="p1", name="One")
    assert [profile.websocket_mode] == [False]
    apply_form(profile, ProfileForm(texts={"name": "One"}, websocket_mode=True))
    assert [profile.websocket_mode] == [True]
    apply_form(profile, ProfileForm(texts={"name": "One"}))
    assert [profile.websocket_mode] == [False]
