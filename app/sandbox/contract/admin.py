"""The contract of the Admin API: its bodies, its queries, and the kinds of audit events."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.sandbox.contract.responses import Strict

MAX_DESCRIPTION = 200

# The published spelling of an entry, as app.netrules reads it: an IPv4 address without leading zeros, or an
# IPv6 address as RFC 3986 writes one (no zone id), each with an optional prefix in its family's range and
# no leading zero; ASCII spaces and tabs around it. What it cannot say is host bits set (a 400 that offers
# both readings). tests/sandbox/test_contract.py holds it to the server's reading both ways.
_OCTET = r"(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
_IPV4 = rf"{_OCTET}(\.{_OCTET}){{3}}"
_H16 = r"[0-9A-Fa-f]{1,4}"
_LS32 = rf"({_H16}:{_H16}|{_IPV4})"
_IPV6 = "|".join(
    [
        rf"({_H16}:){{6}}{_LS32}",
        rf"::({_H16}:){{5}}{_LS32}",
        rf"({_H16})?::({_H16}:){{4}}{_LS32}",
        rf"(({_H16}:){{0,1}}{_H16})?::({_H16}:){{3}}{_LS32}",
        rf"(({_H16}:){{0,2}}{_H16})?::({_H16}:){{2}}{_LS32}",
        rf"(({_H16}:){{0,3}}{_H16})?::{_H16}:{_LS32}",
        rf"(({_H16}:){{0,4}}{_H16})?::{_LS32}",
        rf"(({_H16}:){{0,5}}{_H16})?::{_H16}",
        rf"(({_H16}:){{0,6}}{_H16})?::",
    ]
)
_V4_PREFIX = r"(3[0-2]|[12]?[0-9])"
_V6_PREFIX = r"(12[0-8]|1[01][0-9]|[1-9]?[0-9])"
CIDR_SHAPE = rf"^[ \t]*({_IPV4}(/{_V4_PREFIX})?|({_IPV6})(/{_V6_PREFIX})?)[ \t]*$"
CIDR_TEXT = (
    "An address or a CIDR range (IPv4, or IPv6 without a zone id). A range with host bits set "
    "(192.168.1.5/24) is a 400 `invalid_cidr` that offers both readings; IPv4-mapped IPv6 is kept as IPv4."
)
EXPIRES_TEXT = (
    "Unix seconds, after the service's time when the request arrives (a past or present time is a 400 "
    "`invalid_expires_at`); null or absent: never expires."
)


class AuditType(StrEnum):
    """What an audit event records: one kind of change to an allowlist, a key, a limit or a stored prompt
    (made, or refused)."""

    ENTRY_CREATED = "ip_allowlist.entry.created"
    ENTRY_DELETED = "ip_allowlist.entry.deleted"
    ENTRY_UPDATED = "ip_allowlist.entry.updated"  # a new expiry or description (PATCH)
    ENTRY_EXPIRED = "ip_allowlist.entry.expired"  # removed by the service, a grace period after it expired
    ENABLED = "ip_allowlist.enabled"
    DISABLED = "ip_allowlist.disabled"
    KEY_CREATED = "api_key.created"  # an admin key or a project key (`after.kind` says which)
    KEY_DELETED = "api_key.deleted"
    SERVICE_ACCOUNT_CREATED = "service_account.created"
    SERVICE_ACCOUNT_DELETED = "service_account.deleted"
    CERTIFICATE_CREATED = "certificate.created"  # a CA certificate uploaded (mutual TLS)
    CERTIFICATE_DELETED = "certificate.deleted"
    CERTIFICATE_RENAMED = "certificate.updated"
    CERTIFICATE_ACTIVATED = "certificate.activated"  # at the organization or a project
    CERTIFICATE_DEACTIVATED = "certificate.deactivated"
    RATE_LIMIT_UPDATED = "rate_limit.updated"  # a project's requests or tokens per minute
    BUDGET_UPDATED = "budget.updated"  # a monthly budget set, changed or removed (store/budgets.py)
    BUDGET_ALERT = "budget.threshold_reached"  # this month's spend reached one of a budget's thresholds
    PROMPT_CREATED = "prompt.created"  # a stored prompt saved, its version "1" (store/prompts.py)
    PROMPT_VERSION_CREATED = "prompt.version.created"  # a prompt's next version saved


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
    cidr: str = Field(max_length=100, description=CIDR_TEXT, json_schema_extra={"pattern": CIDR_SHAPE})
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION)
    expires_at: ExpiresAt | None = Field(default=None, description=EXPIRES_TEXT)


class EntryPatch(Strict):
    """The body of `PATCH .../ip_allowlist/entries/{id}`: a new expiry (null: never) and maybe a description."""

    expires_at: ExpiresAt | None = Field(description=EXPIRES_TEXT)
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


class NoQuery(BaseModel):
    """The query of a write that takes none: adding an entry never locks anyone out, so it has no `force`."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ForceQuery(BaseModel):
    """`?force=` on the Admin API's writes: only `true` or `false`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    force: Literal["true", "false"] = "false"
