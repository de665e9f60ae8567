"""Secrets (API key, admin key, client key passphrase, proxy password) in the OS keychain through keyring, and nowhere else.

With no working keychain the console may keep a secret for this session only, in memory, when the person
agrees; it never falls back to a file on its own.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # keyring is imported on first use: it scans entry points, ~0.1 s the window need not wait
    from keyring.backend import KeyringBackend

SERVICE = "service-console"
SECRET_NAMES = ("api_key", "admin_key", "client_key_password", "proxy_password")


def _errors() -> ModuleType:
    import keyring.errors

    return keyring.errors


class KeychainUnavailable(Exception):
    """No keychain can store the secret; the message says why and what to do."""


def keychain_problem(backend: KeyringBackend | None = None) -> str | None:
    """None when a real keychain is there; otherwise a sentence for a person."""
    import keyring

    backend = backend or keyring.get_keyring()
    module = type(backend).__module__
    if module.startswith(("keyring.backends.fail", "keyring.backends.null")):
        return (
            "No keychain is available on this system (on Linux: no Secret Service such as GNOME Keyring or "
            "KWallet is running)."
        )
    if module.startswith("keyrings.alt"):
        return "The only keychain found stores secrets in a plain file, which the console does not use."
    return None


class SecretStore:
    """Keychain first, then secrets kept for this session, then the environment variables of the profile."""

    def __init__(self, backend: KeyringBackend | None = None) -> None:
        self._backend = backend
        self._session: dict[tuple[str, str], str] = {}
        self._read: set[str] = set()  # every secret handed out this session, for the log redactor
        self.locked = False  # the last keychain read met a locked keychain

    @property
    def backend(self) -> KeyringBackend:
        import keyring

        return self._backend or keyring.get_keyring()

    def problem(self) -> str | None:
        return keychain_problem(self.backend)

    def get(self, profile_id: str, name: str, env_var: str | None = None) -> str | None:
        value = self._session.get((profile_id, name))
        if value is None and self.problem() is None:
            try:
                value = self.backend.get_password(SERVICE, f"{profile_id}:{name}")
                self.locked = False
            except _errors().KeyringLocked:
                self.locked, value = True, None
            except _errors().KeyringError:
                value = None
        if value is None and env_var:
            value = os.environ.get(env_var) or None
        if value:
            self._read.add(value)
        return value

    def source(self, profile_id: str, name: str, env_var: str | None = None) -> str:
        """Where the secret would come from: keychain, session, environment, or none."""
        if (profile_id, name) in self._session:
            return "session"
        if self.problem() is None:
            try:
                if self.backend.get_password(SERVICE, f"{profile_id}:{name}") is not None:
                    return "keychain"
            except _errors().KeyringError:
                pass
        if env_var and os.environ.get(env_var):
            return "environment"
        return "none"

    def set(self, profile_id: str, name: str, value: str, session_only: bool = False) -> str:
        """Store a secret; returns where it went. Raises KeychainUnavailable unless session_only."""
        if session_only:
            self._session[(profile_id, name)] = value
            return "session"
        problem = self.problem()
        if problem:
            raise KeychainUnavailable(problem)
        try:
            self.backend.set_password(SERVICE, f"{profile_id}:{name}", value)
        except _errors().KeyringLocked:
            raise KeychainUnavailable("The keychain is locked: unlock it and try again.") from None
        except _errors().KeyringError as error:
            raise KeychainUnavailable(f"The keychain refused the secret: {error}.") from None
        self._session.pop((profile_id, name), None)
        return "keychain"

    def delete(self, profile_id: str, name: str) -> None:
        self._session.pop((profile_id, name), None)
        if self.problem() is None:
            try:
                self.backend.delete_password(SERVICE, f"{profile_id}:{name}")
            except _errors().KeyringError:
                pass

    def delete_profile(self, profile_id: str) -> None:
        for name in SECRET_NAMES:
            self.delete(profile_id, name)

    def known_values(self) -> list[str]:
        """Secrets held or handed out in this session, for the log redactor."""
        return [*self._session.values(), *self._read]
