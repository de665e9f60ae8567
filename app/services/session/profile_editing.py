"""Editing profiles for the Profiles dialog: the checks a profile passes before it is kept, the order in
which it and its secrets are stored, and what Test connection tries. The dialog shows fields, errors and
results; every decision is here (the field rules are in app/core/profile_form.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.common.proxy_url import BadProxyUrl
from app.common.secrets import KeychainUnavailable
from app.common.wording import in_sentence
from app.core.profile import Profile
from app.core.profile_form import (
    SECRET_FIELDS,
    ProfileForm,
    apply_form,
    form_problem,
    keep_proxy,
    keychain_refusal,
    missing_file,
    secret_env,
    stored_sentence,
)
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:  # httpx-backed: imported with the first client, after the window shows
    from app.api.transport import ConnectionSettings

SANDBOX_STAYS = "The local sandbox profile stays; it is what the console falls back to."


@dataclass(frozen=True)
class KeptProxy:
    """The Proxy URL as it is kept (scheme added, no password), and the password it carried for the masked
    Proxy password field ("" when it carried none or one was typed there)."""

    url: str
    password: str


@dataclass(frozen=True)
class SaveOutcome:
    """What Save did: `ok` when the profile and every secret typed are kept, and the sentence saying so or
    why not. `proxy`: the Proxy URL as kept, to show (None when it was not reached or is not set)."""

    ok: bool
    message: str
    proxy: KeptProxy | None = None


@dataclass(frozen=True)
class ConnectionTest:
    """What Test connection tries: the settings (typed values before stored ones) and the organization whose
    allowlists the admin key reads; or, with `settings` None, the sentence saying why it cannot."""

    settings: ConnectionSettings | None
    org_id: str = ""
    problem: str = ""
    proxy: KeptProxy | None = None


@dataclass(frozen=True)
class SecretSource:
    """Where one secret of a profile comes from: "keychain", "session", "environment" or "none"."""

    name: str
    label: str
    source: str
    env: str | None


class ProfileEditor:
    """Saves, removes and tests profiles for the dialog, through the console's session."""

    def __init__(self, session: ConsoleSession) -> None:
        self.session = session

    def secret_sources(self, profile: Profile) -> list[SecretSource]:
        sources = []
        for name, label in SECRET_FIELDS:
            env = secret_env(profile, name)
            sources.append(SecretSource(name, label, self.session.secrets.source(profile.id, name, env), env))
        return sources

    def keychain_problem(self) -> str | None:
        """Why secrets cannot go to a keychain here (none, or only a plain file); None when one takes them."""
        return self.session.secrets.problem()

    def stored_secret(self, profile: Profile, name: str) -> str | None:
        """The secret as the console would use it (keychain, session, or the environment variable)."""
        return self.session.secrets.get(profile.id, name, secret_env(profile, name))

    def engine_caption(self, profile: Profile | None, chosen: str, chosen_label: str) -> str:
        """What answers in the embedded sandbox, read from the running engine; and, when another engine is
        chosen, that it answers once saved. "" for any other profile."""
        if profile is None or not profile.is_sandbox:
            return ""
        running = self.session.sandbox.engine_status().text.removeprefix("Sandbox: ")
        text = f"Now answering: {running}."
        if chosen != (profile.engine or "simulated"):
            text += f"\nAfter Save: {chosen_label} (the sandbox restarts with it)."
        return text.replace("..", ".")

    def save(self, profile: Profile, form: ProfileForm, kept: Callable[[Profile], None]) -> SaveOutcome:
        """Check the form, keep the profile, then its secrets; the current profile connects again with them.
        `kept` is called once the profile itself is stored, before a secret goes to the keychain (which may
        ask the person a question): a key the keychain refuses must not take the typed name, URL and ids
        down with it."""
        apply_form(profile, form)
        if problem := form_problem(profile):
            return SaveOutcome(False, problem)
        try:
            moved = keep_proxy(profile, form.secrets.get("proxy_password", ""))
        except BadProxyUrl as error:
            return SaveOutcome(False, f"✗ Proxy URL: {error}")
        proxy = KeptProxy(profile.proxy, moved) if profile.proxy else None
        if missing := missing_file(profile):
            return SaveOutcome(False, f"✗ {missing} is not a file.", proxy)
        self.session.profiles.save(profile)
        kept(profile)
        secrets = {**form.secrets, **({"proxy_password": moved} if moved else {})}
        stored: list[tuple[str, str]] = []
        for name, label in SECRET_FIELDS:
            value = secrets.get(name, "")
            if not value:
                continue
            try:
                where = self.session.store_secret(
                    profile.id, name, value, f"the {in_sentence(label)} of “{profile.name}”"
                )
            except KeychainUnavailable as error:
                return SaveOutcome(False, keychain_refusal(label, error, secret_env(profile, name)), proxy)
            stored.append((label, where))
        if profile.id == self.session.profiles.current_id():
            self.session.tasks.start("session.activate", self.session.activate(profile.id))
        return SaveOutcome(True, stored_sentence(stored), proxy)

    def removal_refused(self, profile: Profile) -> str | None:
        """Why the profile cannot be removed; None when it can."""
        return SANDBOX_STAYS if profile.is_sandbox else None

    def remove(self, profile: Profile) -> None:
        """The profile and its secrets go (its keys from the keychain first: nothing would name them after)."""
        self.session.secrets.delete_profile(profile.id)
        self.session.profiles.remove(profile.id)

    def connection_test(self, profile: Profile, form: ProfileForm) -> ConnectionTest:
        """The settings Test connection tries: the form's values, its typed keys before the stored ones. The
        embedded sandbox is tested as it runs (its address and ids are the running sandbox's)."""
        apply_form(profile, form)
        if profile.is_sandbox and self.session.profile is not None:
            profile = self.session.profile
        typed_password = form.secrets.get("proxy_password", "")
        try:
            moved = keep_proxy(profile, typed_password)
        except BadProxyUrl as error:
            return ConnectionTest(None, problem=f"✗ Proxy URL: {error}")
        proxy = KeptProxy(profile.proxy, moved) if profile.proxy else None
        if missing := missing_file(profile):
            return ConnectionTest(None, problem=f"✗ {missing} is not a file.", proxy=proxy)
        try:
            settings = self.session.settings_for(profile, proxy_password=typed_password or moved or None)
        except BadProxyUrl as error:
            return ConnectionTest(None, problem=f"✗ Proxy URL: {error}", proxy=proxy)
        for name in ("api_key", "admin_key", "client_key_password"):
            if typed := form.secrets.get(name, ""):
                setattr(settings, name, typed)
        return ConnectionTest(settings, profile.org_id, proxy=proxy)

    def start_test(self, test: ConnectionTest, show: Callable[[str], None]) -> None:
        """Run the test as the session's "settings.test" task (a new test cancels the one before); `show`
        gets its sentence, whatever happened: the person sees it, not only the log."""
        settings = test.settings
        if settings is None:
            show(test.problem)
            return

        async def run() -> None:
            said = "✗ The test failed: the log says why."
            try:
                said = await self.session.test_settings(settings, test.org_id)
            finally:
                show(said)

        self.session.tasks.start("settings.test", run())
