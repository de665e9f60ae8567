"""Profiles: where to connect and how; stored in QSettings. Their secrets live in the keychain (app.common.secrets)."""

from __future__ import annotations

from dataclasses import asdict, fields

from PySide6.QtCore import QObject, QSettings, Signal

from app.common.engine_kind import EngineKind
from app.core.profile import SANDBOX_ID, Profile, new_profile_id

__all__ = ["SANDBOX_ID", "Profile", "ProfileStore", "new_profile_id"]


def _seconds(value: object, default: int = 300) -> int:
    """A number of seconds read back from console.ini (a string there); the default when unreadable."""
    try:
        seconds = int(str(value))
    except ValueError:
        return default
    return seconds if 1 <= seconds <= 3600 else default


class ProfileStore(QObject):
    """The list of profiles and the current one; emits `changed` after any edit."""

    changed = Signal()

    def __init__(self, settings: QSettings, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._settings = settings

    @property
    def settings(self) -> QSettings:
        return self._settings

    def all(self) -> list[Profile]:
        profiles = []
        size = self._settings.beginReadArray("profiles")
        names = {f.name for f in fields(Profile)}
        for index in range(size):
            self._settings.setArrayIndex(index)
            values = {key: self._settings.value(key) for key in self._settings.childKeys() if key in names}
            models = values.pop("models", None) or []
            first_byte_wait = _seconds(values.pop("first_byte_wait", None))
            texts = {key: "" if value is None else str(value) for key, value in values.items()}
            # QSettings gives a one-item list back as a plain string
            listed = (
                [models]
                if isinstance(models, str)
                else [str(model) for model in models]
                if isinstance(models, list)
                else []
            )
            profile = Profile(
                id=texts.pop("id"), name=texts.pop("name"), models=listed, first_byte_wait=first_byte_wait
            )
            engine = texts.pop("engine", None)
            for name, text in texts.items():  # every other field is text
                setattr(profile, name, text)
            profile.engine = EngineKind.read(engine)
            profiles.append(profile)
        self._settings.endArray()
        return profiles

    def _write(self, profiles: list[Profile]) -> None:
        self._settings.beginWriteArray("profiles", len(profiles))
        for index, profile in enumerate(profiles):
            self._settings.setArrayIndex(index)
            for key, value in asdict(profile).items():
                self._settings.setValue(key, str(value) if isinstance(value, EngineKind) else value)
        self._settings.endArray()
        self._settings.sync()
        self.changed.emit()

    def get(self, profile_id: str) -> Profile | None:
        return next((p for p in self.all() if p.id == profile_id), None)

    def save(self, profile: Profile) -> None:
        profiles = self.all()
        for index, existing in enumerate(profiles):
            if existing.id == profile.id:
                profiles[index] = profile
                break
        else:
            profiles.append(profile)
        self._write(profiles)

    def remove(self, profile_id: str) -> None:
        self._write([p for p in self.all() if p.id != profile_id])
        if self.current_id() == profile_id:
            remaining = self.all()
            self.set_current(remaining[0].id if remaining else "")

    def current_id(self) -> str:
        return str(self._settings.value("current_profile", "") or "")

    def set_current(self, profile_id: str) -> None:
        self._settings.setValue("current_profile", profile_id)
        self._settings.sync()

    def ensure_sandbox_profile(self) -> Profile:
        """First launch: a 'Local sandbox' profile, made current."""
        profile = self.get(SANDBOX_ID)
        if profile is None:
            profile = Profile(id=SANDBOX_ID, name="Local sandbox", kind="sandbox")
            self.save(profile)
        if not self.current_id() or self.get(self.current_id()) is None:
            self.set_current(profile.id)
        return profile
