"""Profiles: where to connect and how; kept in the settings file (app.core.settings), which the command line
reads too. Their secrets live in the keychain (app.common.secrets)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from app.common.proxy_url import BadProxyUrl, parse_proxy_url
from app.common.secrets import KeychainUnavailable, SecretStore
from app.core.profile import SANDBOX_ID, Profile, new_profile_id
from app.core.settings import ConsoleSettings, SettingsFile

__all__ = ["SANDBOX_ID", "Profile", "ProfileStore", "migrate_proxy_passwords", "new_profile_id"]

log = logging.getLogger(__name__)


class ProfileStore(QObject):
    """The list of profiles and the current one; emits `changed` after any edit."""

    changed = Signal()

    def __init__(self, settings: SettingsFile, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings

    @property
    def settings(self) -> SettingsFile:
        """The settings file, which the other services read and write their own sections of."""
        return self._settings

    def all(self) -> list[Profile]:
        return self._settings.load().profiles

    def get(self, profile_id: str) -> Profile | None:
        return next((p for p in self.all() if p.id == profile_id), None)

    def save(self, profile: Profile) -> None:
        def change(settings: ConsoleSettings) -> None:
            for index, existing in enumerate(settings.profiles):
                if existing.id == profile.id:
                    settings.profiles[index] = profile
                    break
            else:
                settings.profiles.append(profile)

        self._settings.update(change)
        self.changed.emit()

    def remove(self, profile_id: str) -> None:
        def change(settings: ConsoleSettings) -> None:
            settings.profiles = [p for p in settings.profiles if p.id != profile_id]
            if settings.current_profile == profile_id:
                settings.current_profile = settings.profiles[0].id if settings.profiles else ""

        self._settings.update(change)
        self.changed.emit()

    def current_id(self) -> str:
        return self._settings.load().current_profile

    def set_current(self, profile_id: str) -> None:
        if self.current_id() != profile_id:  # each activation asks: a read, not a locked read and write
            self._settings.update(lambda settings: setattr(settings, "current_profile", profile_id))

    def ensure_sandbox_profile(self) -> Profile:
        """First launch: a 'Local sandbox' profile, made current, in one write of the settings file (a
        profile saved and then made current were two, each synced to disk)."""
        found: list[Profile] = []
        made: list[Profile] = []

        def change(settings: ConsoleSettings) -> None:
            profile = next((p for p in settings.profiles if p.id == SANDBOX_ID), None)
            if profile is None:
                profile = Profile(id=SANDBOX_ID, name="Local sandbox", kind="sandbox")
                settings.profiles.append(profile)
                made.append(profile)
            if not any(p.id == settings.current_profile for p in settings.profiles):
                settings.current_profile = profile.id
            found.append(profile)

        self._settings.update(change)
        if made:
            self.changed.emit()
        return found[0]


def migrate_proxy_passwords(profiles: ProfileStore, secrets: SecretStore) -> None:
    """A settings file from before the keychain kept proxy passwords holds `http://user:pass@…`: the
    password moves to the keychain and the file keeps the URL without it. With no keychain the file is
    left as it is (nothing is lost), and the log says so without the password."""
    for profile in profiles.all():
        try:
            proxy = parse_proxy_url(profile.proxy) if profile.proxy.strip() else None
        except BadProxyUrl:
            continue  # said at activation and in the dialog
        if proxy is None or not proxy.password:
            continue
        try:
            secrets.set(profile.id, "proxy_password", proxy.password)
        except KeychainUnavailable as error:
            log.warning("The proxy password of %s stays in the settings file: %s", profile.name, error)
            continue
        profile.proxy = proxy.public
        profiles.save(profile)
        log.info("The proxy password of %s moved from the settings file to the keychain.", profile.name)
