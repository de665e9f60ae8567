"""The Admin API's audit log as the console reads it: who changed an allowlist, how, and whether it applied.

Frozen models that ignore fields they do not know; a kind of actor or a result this console does not know yet
reads as OTHER, so a newer service's log still shows. `AuditLog` (audit_log.py) reads the pages.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import field_validator

from .wire import WireModel


class AuditActorKind(StrEnum):
    API_KEY = "api_key"  # an admin key, through the Admin API
    DASHBOARD = "dashboard"  # the sandbox's dashboard command line, on the store directly
    SERVICE = "service"  # the service itself (an expired entry removed after its grace period)
    OTHER = "other"  # a kind this console does not know yet


class AuditResult(StrEnum):
    APPLIED = "applied"
    REFUSED = "refused"
    OTHER = "other"


class AuditActor(WireModel):
    type: AuditActorKind = AuditActorKind.OTHER
    id: str | None = None  # the admin key's id (never its secret)
    name: str = ""

    @field_validator("type", mode="before")
    @classmethod
    def _known_kind(cls, value: Any) -> Any:
        return value if value in AuditActorKind._value2member_map_ else AuditActorKind.OTHER


class AuditState(WireModel):
    """One side of a change: an entry's fields, a list's switch (`enabled`), or a stored prompt's version
    (`name`, `version`, `note`)."""

    id: str | None = None
    cidr: str | None = None
    description: str | None = None
    expires_at: int | None = None
    enabled: bool | None = None
    name: str | None = None
    version: str | None = None
    note: str | None = None


class AuditEvent(WireModel):
    """One change to an allowlist as the service recorded it, made or refused."""

    id: str
    type: str  # ip_allowlist.entry.created|deleted|updated|expired, ip_allowlist.enabled|disabled
    created_at: int
    actor: AuditActor = AuditActor()
    source_ip: str | None = None
    scope: str = "organization"
    owner_id: str = ""
    project_id: str | None = None
    entry_id: str | None = None
    before: AuditState | None = None
    after: AuditState | None = None
    result: AuditResult = AuditResult.OTHER
    status: int = 0
    code: str | None = None  # why it was refused (would_block_caller, precondition_failed, ...)
    forced: bool = False

    @field_validator("result", mode="before")
    @classmethod
    def _known_result(cls, value: Any) -> Any:
        return value if value in AuditResult._value2member_map_ else AuditResult.OTHER


class AuditPage(WireModel):
    """One page of the audit log, newest first; `next_after` continues it when `has_more`."""

    data: tuple[AuditEvent, ...] = ()
    first_id: str | None = None
    last_id: str | None = None
    has_more: bool = False

    @property
    def next_after(self) -> str | None:
        return self.last_id if self.has_more else None
