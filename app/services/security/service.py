"""The services behind the Security tab, made once with the main window and handed to the tab."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject

from app.services.security.allowlist import AllowlistService
from app.services.security.audit import AuditLog
from app.services.security.certificates import CertificatesService
from app.services.security.history import ChangeHistory
from app.services.security.key_rotation import KeyRotationService
from app.services.security.keys import KeysService
from app.services.security.list_tools import ListTools
from app.services.security.policy_import import PolicyImport
from app.services.security.public_ip import PublicIpService
from app.services.security.refused import RefusedService
from app.services.security.rotation import RotationService
from app.services.session.session import ConsoleSession


@dataclass(frozen=True)
class SecurityServices:
    history: ChangeHistory
    allowlist: AllowlistService
    rotation: RotationService
    public_ip: PublicIpService
    audit: AuditLog
    keys: KeysService
    key_rotation: KeyRotationService
    certificates: CertificatesService
    refused: RefusedService
    tools: ListTools  # Simplify… and the evidence before a removal
    policy_import: PolicyImport  # a policy file (.toml) imported into the shown list

    @classmethod
    def create(cls, session: ConsoleSession, parent: QObject | None = None) -> SecurityServices:
        history = ChangeHistory(session.data_dir / "allowlist-history.jsonl", parent)
        allowlist = AllowlistService(session, history, parent)
        keys = KeysService(session, history, parent)
        return cls(
            history,
            allowlist,
            RotationService(session, history, parent),
            PublicIpService(session, session.profiles.settings, parent),
            AuditLog(session, history, allowlist.label_for, parent),
            keys,
            KeyRotationService(keys, parent),
            CertificatesService(session, parent),
            RefusedService(session, allowlist, parent),
            ListTools(session, allowlist, parent),
            PolicyImport(session, allowlist, parent),
        )
