"""The contract of the Admin API: its bodies, its queries, and the kinds of audit events."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.sandbox.contract.responses import Strict

MAX_DESCRIPTION = 200
CIDR_SHAPE = r"^[ \t]*([0-9]{1,3}(\.[0-9]{1,3}){3}|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)(/[0-9]{1,3})?[ \t]*$"


class AuditType(StrEnum):
    """What an audit event records: one kind of change to an allowlist (made, or refused)."""

    ENTRY_CREATED = "ip_allowlist.entry.created"
    ENTRY_DELETED = "ip_allowlist.entry.deleted"
    ENTRY_UPDATED = "ip_allowlist.entry.updated"  # a new expiry or description (PATCH)
    ENTRY_EXPIRED = "ip_allowlist.entry.expired"  # removed by the service, a grace period after it expired
    ENABLED = "ip_allowlist.enabled"
    DISABLED = "ip_allowlist.disabled"
    CERTIFICATE_CREATED = "certificate.created"  # a CA certificate uploaded (mutual TLS)
    CERTIFICATE_DELETED = "certificate.deleted"
    CERTIFICATE_RENAMED = "certificate.updated"
    CERTIFICATE_ACTIVATED = "certificate.activated"  # at the organization or a project
    CERTIFICATE_DEACTIVATED = "certificate.deactivated"


class AuditActorKind(StrEnum):
    """Who made a change: an admin key through the API, the dashboard command line, the service itself."""

    API_KEY = "api_key"
    DASHBOARD = "dashboard"
    SERVICE = "service"


class AuditResult(StrEnum):
    APPLIED = "applied"
    REFUSED = "refused"


# Unix seconds an entry may expire at: after 2001 and before 2100 (a typo of milliseconds is refused).
MIN_EXPIRES_AT = 1_000_000_000
MAX_EXPIRES_AT = 4_102_444_800
ExpiresAt = Annotated[int, Field(ge=MIN_EXPIRES_AT, lt=MAX_EXPIRES_AT, strict=True)]


class EntryCreate(Strict):
    """The body of `POST .../ip_allowlist/entries`: `expires_at` (Unix seconds, in the future) is optional."""

    # The published shape of an entry (digits and dots, or hex and colons, then an optional /prefix; ASCII
    # spaces around it), so a client reading /openapi.json refuses "0" as the server does. Only in the
    # document: the server's own check (app.netrules) gives the precise message.
    cidr: str = Field(min_length=1, max_length=100, json_schema_extra={"pattern": CIDR_SHAPE})
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    expires_at: ExpiresAt | None = None


class EntryPatch(Strict):
    """The body of `PATCH .../ip_allowlist/entries/{id}`: a new expiry (null: never) and maybe a description."""

    expires_at: ExpiresAt | None
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)


class ListPatch(Strict):
    """The body of `PATCH .../ip_allowlist`."""

    enabled: bool


class AuditQuery(BaseModel):
    """`GET /v1/organizations/{org}/audit_log?limit=&after=&type=&project_id=` (newest first)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    limit: int = Field(default=20, ge=1, le=100)
    after: str | None = Field(default=None, min_length=1, max_length=64)
    type: AuditType | None = None
    project_id: str | None = Field(default=None, min_length=1, max_length=64)


class ForceQuery(BaseModel):
    """`?force=` on the Admin API's writes: only `true` or `false`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    force: Literal["true", "false"] = "false"
