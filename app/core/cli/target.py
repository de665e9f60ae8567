"""Which service the command line talks to, and with which keys: a saved profile (`--profile NAME`, read from
the console's settings file), else `SERVICE_BASE_URL` / `SERVICE_ORG_ID` / `SERVICE_ADMIN_KEY`, else the
console's profile when it has only one. The local sandbox's profile: app.core.cli.sandbox_target.

Keys come from the keychain (the profile's, through app.common.secrets) or from the environment, never from
an argument: an argument would show in `ps` and in the shell's history.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from app.common.secrets import SecretStore
from app.core.profile import Profile, connection_settings
from app.core.settings import ConsoleFolders, ConsoleSettings

from .outcome import CommandFailed, Exit, Target
from .sandbox_target import embedded_sandbox

ENV_BASE_URL, ENV_ORG_ID, ENV_ADMIN_KEY, ENV_API_KEY = (
    "SERVICE_BASE_URL",
    "SERVICE_ORG_ID",
    "SERVICE_ADMIN_KEY",
    "SERVICE_API_KEY",
)


def resolve(profile_name: str | None, home: Path | None) -> Target:
    """The connection of the named profile, else of the environment, else of the console's only profile;
    CommandFailed says what is missing."""
    if profile_name:
        return _from_profile(profile_name, home)
    base_url = os.environ.get(ENV_BASE_URL, "").strip()
    if not base_url:
        folders, saved = saved_settings(home)
        if len(saved.profiles) == 1:
            return _target_of(saved.profiles[0], folders, saved)
        known = ", ".join(f"“{p.name}”" for p in saved.profiles) or f"none in {folders.settings_file}"
        raise CommandFailed(
            Exit.USAGE,
            f"Name a profile with --profile NAME (profiles: {known}), or set ${ENV_BASE_URL} and ${ENV_ORG_ID}.",
        )
    org_id = os.environ.get(ENV_ORG_ID, "").strip()
    if not org_id:
        raise CommandFailed(Exit.USAGE, f"${ENV_BASE_URL} is set but ${ENV_ORG_ID} is not.")
    from app.api.transport import ConnectionSettings

    settings = ConnectionSettings(
        base_url=base_url,
        admin_key=os.environ.get(ENV_ADMIN_KEY) or None,
        api_key=os.environ.get(ENV_API_KEY) or None,
        **_tls_files(),
    )
    return _with_admin_key(Target(settings, org_id, "the environment"), f"${ENV_ADMIN_KEY}")


# Mutual TLS from the environment: files, as a profile names them (the key's passphrase, if any, in
# $SERVICE_CLIENT_KEY_PASSPHRASE).
ENV_TLS_FILES = {
    "ca_bundle": "SERVICE_CA_BUNDLE",
    "client_cert": "SERVICE_CLIENT_CERT",
    "client_key": "SERVICE_CLIENT_KEY",
}


def _tls_files() -> dict[str, Any]:
    files: dict[str, Any] = {
        field: Path(os.environ[name]).expanduser()
        for field, name in ENV_TLS_FILES.items()
        if os.environ.get(name)
    }
    if files.get("client_cert") and os.environ.get("SERVICE_CLIENT_KEY_PASSPHRASE"):
        files["client_key_password"] = os.environ["SERVICE_CLIENT_KEY_PASSPHRASE"]
    return files


def saved_settings(home: Path | None) -> tuple[ConsoleFolders, ConsoleSettings]:
    """The console's folders and its settings, read from the window's settings file (`--home`, or the
    user's); CommandFailed when only an earlier version's console.ini is there."""
    from app.core.settings import SettingsFile

    folders = ConsoleFolders.under(home) if home else ConsoleFolders.for_user()
    settings = SettingsFile(folders.settings_file)
    if not settings.exists() and folders.legacy_settings_file.is_file():
        raise CommandFailed(
            Exit.USAGE,
            f"The console's settings are still in {folders.legacy_settings_file}, from an earlier version: "
            "open the console once to bring them over.",
        )
    saved = settings.load()
    if settings.damaged is not None:
        print(f"warning: {settings.damaged.explain()}", file=sys.stderr)
    return folders, saved


def _from_profile(name: str, home: Path | None) -> Target:
    folders, saved = saved_settings(home)
    profile = saved.find(name)
    if profile is None:
        known = ", ".join(f"“{p.name}”" for p in saved.profiles) or f"none in {folders.settings_file}"
        raise CommandFailed(Exit.USAGE, f"No profile named “{name}” (profiles: {known}).")
    return _target_of(profile, folders, saved)


def _target_of(profile: Profile, folders: ConsoleFolders, saved: ConsoleSettings) -> Target:
    if profile.is_sandbox:
        return embedded_sandbox(profile, folders, saved.sandbox.port)
    if not profile.org_id:
        raise CommandFailed(
            Exit.USAGE, f"The profile “{profile.name}” has no organization id: set it in File > Profiles."
        )
    settings = connection_settings(profile, SecretStore())
    where = f"the keychain (File > Profiles > “{profile.name}”) or ${profile.admin_key_env}"
    target = Target(settings, profile.org_id, f"the profile “{profile.name}”", profile.brand)
    return _with_admin_key(target, where)


def _with_admin_key(target: Target, where: str) -> Target:
    if not target.settings.admin_key:
        raise CommandFailed(Exit.AUTH, f"No admin key for {target.label}: put it in {where}.")
    return target
