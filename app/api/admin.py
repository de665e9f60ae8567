"""The Admin API's IP allowlists and projects: typed models parsed once at the edge, and the resource.

Models are frozen and ignore fields they do not know (a list is parsed from the answer's bytes, a long one
off the event loop's thread: see answer_bytes); a known field of the wrong shape is refused with an
InvalidResponse naming it. Writes whose connection drops before any answer are sent again only when a read
of the list shows it is safe: an add whose address is already listed returns that entry (never doubled), a
remove whose entry is gone reports it deleted.

Two admins at once: every list read carries the list's version (its ETag), which `Allowlists` remembers per
list; each change sends it as `If-Match` (unless told otherwise), so a change to a list that changed since
it was read is refused with `PreconditionFailed`, which carries the list as it stands.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError, field_validator

from app.netrules import EntryError, canonical_entry

from .answer_bytes import parse_list_bytes
from .errors import InvalidResponse, UnansweredWrite
from .requests import AllowlistUpdate, EntryCreate, EntryUpdate
from .transport import Transport, always_resend
from .wire import WireModel, problem


class Entry(WireModel):
    """One entry of a list: an address or a range, in the service's canonical spelling."""

    id: str
    cidr: str
    description: str = ""
    created_at: float | None = None
    expires_at: int | None = None  # Unix seconds; None: never
    expired: bool = False  # as the service saw it when it answered
    hit_count: int = 0  # requests the gateway admitted by this entry
    last_matched_at: int | None = None  # Unix seconds of the latest of them

    @field_validator("description", mode="before")
    @classmethod
    def _no_null_description(cls, value: Any) -> Any:
        return "" if value is None else value

    def expired_at(self, now: float) -> bool:
        """Whether the gateway no longer admits by this entry at `now` (Unix seconds)."""
        return self.expires_at is not None and now >= self.expires_at

    def seconds_left(self, now: float) -> float | None:
        """Seconds until it expires (0 once expired); None for an entry that never does."""
        return None if self.expires_at is None else max(0.0, self.expires_at - now)


class Allowlist(WireModel):
    """The list of the organization or of one project, with the address the service saw the caller at."""

    scope: str = "organization"
    enabled: bool = False
    entries: tuple[Entry, ...] = ()
    source_ip: str | None = None
    version: str | None = None  # changes with every change to the list; sent back as If-Match

    @field_validator("entries", mode="before")
    @classmethod
    def _no_null_entries(cls, value: Any) -> Any:
        return () if value is None else value

    def entry(self, entry_id: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.id == entry_id), None)

    def with_cidr(self, cidr: str) -> Entry | None:
        return next((entry for entry in self.entries if entry.cidr == cidr), None)


class Project(WireModel):
    id: str
    name: str = ""

    @property
    def label(self) -> str:
        return self.name or self.id


class Deleted(WireModel):
    """The answer to a removal."""

    id: str
    deleted: bool = True


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
    """One side of a change: an entry's fields, or a list's switch (`enabled`)."""

    id: str | None = None
    cidr: str | None = None
    description: str | None = None
    expires_at: int | None = None
    enabled: bool | None = None


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


_Model = TypeVar("_Model", bound=WireModel)


def parse(model: type[_Model], data: Any, what: str) -> _Model:
    """One model from decoded JSON; InvalidResponse naming the field when the shape is wrong."""
    if not isinstance(data, dict):
        raise InvalidResponse(f"The server sent {what} that is not a JSON object.")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InvalidResponse(f"The server sent {what} the console cannot read ({problem(error)}).") from None


def parse_projects(data: Any) -> tuple[Project, ...]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidResponse("The server's project list is not a list ({'data': [...]} was expected).")
    return tuple(parse(Project, item, "a project") for item in items)


def _canonical_or_as_sent(cidr: str) -> str:
    try:
        return canonical_entry(cidr)
    except EntryError:  # the service will refuse it with its own words
        return cidr


def _etag_version(headers: httpx.Headers) -> str | None:
    """The version an ETag header names (`"v7"` -> `v7`; a weak `W/` prefix is kept out)."""
    etag = headers.get("etag")
    if not etag:
        return None
    return etag.removeprefix("W/").strip('"') or None


class Allowlists:
    """The Admin API's IP allowlists; `project_id=None` means the organization's list.

    Changes take `if_match`: None (the default) sends the version of the last read or change of that list
    this object saw (nothing if it saw none), a string sends that version, and `False` sends none (the
    change applies whatever the list became)."""

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id
        self._versions: dict[str | None, str] = {}  # project id (None: the organization's) -> last version

    def _path(self, project_id: str | None) -> str:
        base = f"/organizations/{self.org_id}"
        return f"{base}/projects/{project_id}/ip_allowlist" if project_id else f"{base}/ip_allowlist"

    def version(self, project_id: str | None = None) -> str | None:
        """The version of this list as last read or changed through this object."""
        return self._versions.get(project_id)

    def _precondition(self, project_id: str | None, if_match: str | bool | None) -> dict[str, str]:
        if if_match is False:
            return {}
        version = if_match if isinstance(if_match, str) else self._versions.get(project_id)
        return {"if-match": f'"{version}"'} if version else {}

    def _saw(self, project_id: str | None, headers: httpx.Headers, body_version: str | None = None) -> None:
        version = body_version or _etag_version(headers)
        if version:
            self._versions[project_id] = version

    async def get(self, project_id: str | None = None) -> Allowlist:
        content, response = await self._transport.request_bytes("GET", self._path(project_id), key="admin")
        return await self._read_list(project_id, content, response)

    async def _read_list(self, project_id: str | None, content: bytes, response: httpx.Response) -> Allowlist:
        """The list an answer holds, parsed from its bytes (a long one off this thread, see answer_bytes)."""
        url = str(response.request.url)
        allowlist = await parse_list_bytes(Allowlist, "entries", content, "an allowlist", url)
        self._saw(project_id, response.headers, allowlist.version)
        return allowlist

    async def set_enabled(
        self,
        enabled: bool,
        project_id: str | None = None,
        force: bool = False,
        if_match: str | bool | None = None,
    ) -> Allowlist:
        params = {"force": "true"} if force else None
        content, response = await self._transport.request_bytes(
            "PATCH",
            self._path(project_id),
            key="admin",
            json_body=AllowlistUpdate(enabled=enabled),
            params=params,
            retries=0,
            resend_unanswered=always_resend,
            headers=self._precondition(project_id, if_match),
        )
        return await self._read_list(project_id, content, response)

    async def add(
        self,
        cidr: str,
        description: str = "",
        project_id: str | None = None,
        expires_at: int | None = None,
        if_match: str | bool | None = None,
    ) -> Entry:
        """Add an entry (`expires_at`: Unix seconds, or None for never). Sent again after a dropped
        connection only if the list does not hold it yet."""
        wanted = _canonical_or_as_sent(cidr)
        already: list[Entry] = []

        async def not_listed_yet() -> bool:
            listed = (await self.get(project_id)).with_cidr(wanted)
            if listed is not None:
                already.append(listed)
            return listed is None

        body = EntryCreate(cidr=cidr)
        if description:
            body["description"] = description
        if expires_at is not None:
            body["expires_at"] = int(expires_at)
        try:
            result, headers = await self._transport.request(
                "POST",
                f"{self._path(project_id)}/entries",
                key="admin",
                json_body=body,
                retries=0,
                resend_unanswered=not_listed_yet,
                headers=self._precondition(project_id, if_match),
            )
        except UnansweredWrite:
            if already:  # the first attempt went through: that entry, never a second one
                return already[0]
            raise
        self._saw(project_id, headers)
        return parse(Entry, result, "an allowlist entry")

    async def update_entry(
        self,
        entry_id: str,
        expires_at: int | None,
        description: str | None = None,
        project_id: str | None = None,
        force: bool = False,
        if_match: str | bool | None = None,
    ) -> Entry:
        """Give an entry a new expiry (None: never) and, when given, a new description. Setting the same
        values again changes nothing, so a dropped connection sends it again."""
        body = EntryUpdate(expires_at=None if expires_at is None else int(expires_at))
        if description is not None:
            body["description"] = description
        result, headers = await self._transport.request(
            "PATCH",
            f"{self._path(project_id)}/entries/{entry_id}",
            key="admin",
            json_body=body,
            params={"force": "true"} if force else None,
            retries=0,
            resend_unanswered=always_resend,
            headers=self._precondition(project_id, if_match),
        )
        self._saw(project_id, headers)
        return parse(Entry, result, "an allowlist entry")

    async def remove(
        self,
        entry_id: str,
        project_id: str | None = None,
        force: bool = False,
        if_match: str | bool | None = None,
    ) -> Deleted:
        """Remove an entry. Sent again after a dropped connection only while the entry is still listed."""
        gone: list[bool] = []

        async def still_listed() -> bool:
            listed = (await self.get(project_id)).entry(entry_id) is not None
            if not listed:
                gone.append(True)
            return listed

        params = {"force": "true"} if force else None
        try:
            result, headers = await self._transport.request(
                "DELETE",
                f"{self._path(project_id)}/entries/{entry_id}",
                key="admin",
                params=params,
                retries=0,
                resend_unanswered=still_listed,
                headers=self._precondition(project_id, if_match),
            )
        except UnansweredWrite:
            if gone:  # the first attempt went through
                return Deleted(id=entry_id, deleted=True)
            raise
        self._saw(project_id, headers)
        return parse(Deleted, result, "the answer to a removal")

    async def audit_log(
        self,
        limit: int = 20,
        after: str | None = None,
        event_type: str | None = None,
        project_id: str | None = None,
    ) -> AuditPage:
        """One page of the organization's audit log, newest first (`after`: the last id of the page before)."""
        params = {"limit": str(limit)}
        params.update({name: value for name, value in (("after", after), ("type", event_type)) if value})
        if project_id:
            params["project_id"] = project_id
        result, _ = await self._transport.request(
            "GET", f"/organizations/{self.org_id}/audit_log", key="admin", params=params
        )
        return parse(AuditPage, result, "an audit log page")

    async def audit_events(
        self,
        event_type: str | None = None,
        project_id: str | None = None,
        page_size: int = 100,
        limit: int | None = None,
    ) -> AsyncIterator[AuditEvent]:
        """Every event (or the newest `limit`), newest first, page after page."""
        after: str | None = None
        given = 0
        while True:
            page = await self.audit_log(page_size, after, event_type, project_id)
            for event in page.data:
                if limit is not None and given >= limit:
                    return
                given += 1
                yield event
            after = page.next_after
            if after is None:
                return

    async def projects(self) -> tuple[Project, ...]:
        result, _ = await self._transport.request(
            "GET", f"/organizations/{self.org_id}/projects", key="admin"
        )
        return parse_projects(result)
