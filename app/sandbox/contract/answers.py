"""The models of the sandbox's answers as the OpenAPI document names them, and every model's JSON Schema."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from app.sandbox.contract.admin import (
    AuditActorKind,
    AuditResult,
    AuditType,
    EntryCreate,
    EntryPatch,
    ListPatch,
)
from app.sandbox.contract.certificates import CertificateRename, CertificateToggle, CertificateUpload
from app.sandbox.contract.responses import CreateResponse, InputItem
from app.sandbox.contract.stateful_routes import (
    CompactRequest,
    ConversationCreate,
    ConversationUpdate,
    InputTokensRequest,
    ItemsAdd,
)
from app.schema.items import AnswerItem

SUFFIX = "Schema"


def _document_name(model: type) -> str:
    return model.__name__.removesuffix(SUFFIX)


class Answer(BaseModel):
    """Answers may carry more than the document names (as the hosted service's do).

    An answer's model is named `…Schema` here (EntrySchema), apart from the console's `Entry` and the
    store's `EntryRecord`; the document names it as the service does (Entry), in its title and its
    component name."""

    model_config = ConfigDict(extra="allow", model_title_generator=_document_name)


class ErrorDetailSchema(Answer):
    message: str
    type: str
    param: str | None
    code: str | None


class ErrorSchema(Answer):
    error: ErrorDetailSchema


class EntrySchema(Answer):
    """`expired`: the gateway no longer admits by it (`expires_at` has passed); it stays listed until an
    admin removes it or the service does, a grace period later. `hit_count`/`last_matched_at`: requests the
    gateway admitted by this entry (the most specific unexpired entry holding the address), flushed in batches."""

    object: Literal["ip_allowlist.entry"]
    id: str
    cidr: str
    description: str
    created_at: int
    expires_at: int | None
    expired: bool
    hit_count: int
    last_matched_at: int | None


class AllowlistSchema(Answer):
    """`version` changes with every change to the list (not with usage); it is also the `ETag` header."""

    object: Literal["ip_allowlist"]
    scope: Literal["organization", "project"]
    owner_id: str
    enabled: bool
    version: str
    entries: list[EntrySchema]
    source_ip: str | None


class PreconditionFailedSchema(ErrorSchema):
    """412: `If-Match` named a version the list no longer has; `current` is the list as it stands."""

    current: AllowlistSchema


class AuditStateSchema(Answer):
    """One side of a change: an entry's fields, or a list's switch."""

    id: str | None = None
    cidr: str | None = None
    description: str | None = None
    expires_at: int | None = None
    enabled: bool | None = None


class ActorSchema(Answer):
    """Who asked: an admin key (its id and name, never the secret), the dashboard, or the service."""

    type: AuditActorKind
    id: str | None
    name: str


class AuditEventSchema(Answer):
    object: Literal["audit_log.event"]
    id: str
    type: AuditType
    created_at: int
    actor: ActorSchema
    source_ip: str | None
    scope: Literal["organization", "project"]
    owner_id: str
    project_id: str | None
    entry_id: str | None
    before: AuditStateSchema | None
    after: AuditStateSchema | None
    result: AuditResult
    status: int
    code: str | None
    forced: bool


class AuditLogSchema(Answer):
    object: Literal["list"]
    data: list[AuditEventSchema]
    first_id: str | None
    last_id: str | None
    has_more: bool


class EntryDeletedSchema(Answer):
    object: Literal["ip_allowlist.entry.deleted"]
    id: str
    deleted: Literal[True]


class UsageSchema(Answer):
    input_tokens: int
    output_tokens: int
    total_tokens: int


class ResponseObjectSchema(Answer):
    id: str
    object: Literal["response"]
    created_at: int
    status: Literal["completed", "incomplete", "failed", "in_progress", "queued", "cancelled"]
    model: str
    output: list[AnswerItem]
    previous_response_id: str | None = None
    usage: UsageSchema | None = None


class ResponseDeletedSchema(Answer):
    id: str
    object: Literal["response.deleted"]
    deleted: Literal[True]


class ItemListSchema(Answer):
    object: Literal["list"]
    data: list[InputItem]
    first_id: str
    last_id: str
    has_more: bool


class ConversationSchema(Answer):
    id: str
    object: Literal["conversation"]
    created_at: int
    metadata: dict[str, str]


class ConversationDeletedSchema(Answer):
    id: str
    object: Literal["conversation.deleted"]
    deleted: Literal[True]


class InputTokensSchema(Answer):
    object: Literal["response.input_tokens"]
    input_tokens: int


class CompactedSchema(Answer):
    """`POST /v1/responses/compact`: the user's messages as they were, then one `compaction` item."""

    id: str
    object: Literal["response.compaction"]
    created_at: int
    output: list[dict[str, Any]]
    usage: UsageSchema


class ListingSchema(Answer):
    object: Literal["list"]
    data: list[dict[str, Any]]


class CertificateDetailsSchema(Answer):
    """The hosted fields (`valid_at`, `expires_at`, `content` when asked for) and this service's own."""

    valid_at: int
    expires_at: int
    subject: str
    issuer: str
    fingerprint_sha256: str
    content: str | None = None


class ActiveAtSchema(Answer):
    scope: Literal["organization", "project"]
    project_id: str | None


class CertificateSchema(Answer):
    """`active`: at the organization or project the path names (absent on an upload or a retrieve);
    `active_in`: every place it is active at (this service's)."""

    object: Literal["certificate", "organization.certificate", "organization.project.certificate"]
    id: str
    name: str | None
    created_at: int
    certificate_details: CertificateDetailsSchema
    active: bool | None = None
    active_in: list[ActiveAtSchema]


class CertificateListSchema(Answer):
    object: Literal["list"]
    data: list[CertificateSchema]


class CertificateDeletedSchema(Answer):
    object: Literal["certificate.deleted"]
    id: str
    deleted: bool


_MODELS: list[type[BaseModel]] = [
    CertificateUpload,
    CertificateRename,
    CertificateToggle,
    CertificateSchema,
    CertificateListSchema,
    CertificateDeletedSchema,
    CreateResponse,
    EntryCreate,
    EntryPatch,
    ListPatch,
    ErrorSchema,
    EntrySchema,
    AllowlistSchema,
    PreconditionFailedSchema,
    AuditEventSchema,
    AuditLogSchema,
    EntryDeletedSchema,
    ResponseObjectSchema,
    ResponseDeletedSchema,
    ItemListSchema,
    ListingSchema,
    ConversationCreate,
    ConversationUpdate,
    ItemsAdd,
    InputTokensRequest,
    CompactRequest,
    CompactedSchema,
    ConversationSchema,
    ConversationDeletedSchema,
    InputTokensSchema,
]


class _ComponentNames(GenerateJsonSchema):
    """Components named as the service names them: an answer model without its `Schema` suffix."""

    def normalize_name(self, name: str) -> str:
        name = super().normalize_name(name)
        return name.removesuffix(SUFFIX) if name in _ANSWER_NAMES else name


def _answer_names(model: type[Answer] = Answer) -> set[str]:
    return {name for sub in model.__subclasses__() for name in {sub.__name__, *_answer_names(sub)}}


_ANSWER_NAMES = _answer_names()


def components() -> dict[str, Any]:
    """Every model's JSON Schema under components/schemas, request models in their validation mode."""
    _, schema = models_json_schema(
        [(model, "validation") for model in _MODELS],
        ref_template="#/components/schemas/{model}",
        schema_generator=_ComponentNames,
    )
    return dict(schema["$defs"])
