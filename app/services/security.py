"""The services behind the Security tab, made once with the main window and handed to the tab."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject

from .allowlist import AllowlistService
from .history import ChangeHistory
from .public_ip import PublicIpService
from .rotation import RotationService
from .session import ConsoleSession


@dataclass(frozen=True)
class SecurityServices:
    history: ChangeHistory
    allowlist: AllowlistService
    rotation: RotationService
    public_ip: PublicIpService

    @classmethod
    def create(cls, session: ConsoleSession, parent: QObject | None = None) -> SecurityServices:
        history = ChangeHistory(session.data_dir / "allowlist-history.jsonl", parent)
        return cls(
            history,
            AllowlistService(session, history, parent),
            RotationService(session, history, parent),
            PublicIpService(session, session.profiles.settings, parent),
        )
