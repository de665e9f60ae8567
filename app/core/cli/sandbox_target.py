"""The command line on the console's embedded sandbox (the "Local sandbox" profile).

The sandbox runs inside the console's process, on the port the console keeps in its settings, with its
store under the console's data folder. Its keys need no keychain, for the command line as for the window:
the key kept for the profile (keychain or its environment variable) is used when the store knows it;
otherwise the command line does what the console does when its kept keys are gone, and mints an admin key
through the store, for this run only (held in memory, named in the audit log as the command line's).
"""

from __future__ import annotations

import dataclasses
import socket

from app.common.secrets import SecretStore
from app.core.profile import Profile, connection_settings
from app.core.settings import ConsoleFolders

from .outcome import CommandFailed, Exit, Target

MINTED_KEY_NAME = "service-console allowlist (command line)"  # what the sandbox's audit log shows
CONNECT_TIMEOUT_S = 1.0


def embedded_sandbox(profile: Profile, folders: ConsoleFolders, port: int) -> Target:
    """The target of the sandbox profile; CommandFailed(NETWORK) while the console does not run it."""
    store_file = folders.sandbox_data / "sandbox.sqlite3"
    if not port or not store_file.is_file():
        raise CommandFailed(
            Exit.NETWORK, "The console's local sandbox has never run here: open the console first."
        )
    if not _listening(port):  # checked first: a key minted for a sandbox that does not run is wasted
        raise CommandFailed(
            Exit.NETWORK,
            f"The console's local sandbox is not running (nothing answers on 127.0.0.1:{port}): open the "
            "console, which runs it, and try again.",
        )
    from app.sandbox.store.aggregates import Store
    from app.sandbox.store.database import run_blocking

    store = Store(store_file)
    try:
        orgs = store.organizations.orgs()
        if not orgs:
            raise CommandFailed(
                Exit.NETWORK, f"The local sandbox's store ({store_file}) holds no organization."
            )
        org_id = str(orgs[0]["id"])
        profile.base_url, profile.org_id = f"http://127.0.0.1:{port}/v1", org_id
        settings = connection_settings(profile, SecretStore())
        if not settings.admin_key or store.keys.lookup(settings.admin_key) is None:
            minted = run_blocking(store.keys.create("admin", org_id, name=MINTED_KEY_NAME))
            settings = dataclasses.replace(settings, admin_key=minted)
        if settings.api_key and store.keys.lookup(settings.api_key) is None:
            settings = dataclasses.replace(settings, api_key=None)  # a stale one would only be refused
    finally:
        store.close()
    return Target(settings, org_id, f"the profile “{profile.name}”", profile.brand)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=CONNECT_TIMEOUT_S):
            return True
    except OSError:
        return False
