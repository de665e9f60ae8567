"""The Admin API's IP allowlists and projects: typed models parsed once at the edge, and the resource (the
audit log's is audit_log.py).

Models are frozen and ignore fields they do not know (a list is parsed from the answer's bytes, a long one
off the event loop's thread: see answer_bytes); a known field of the wrong shape is refused with an
InvalidResponse naming it. Writes whose connection drops before any answer are sent again only when a read
of the list shows it is safe: an add whose address is already listed returns that entry (never doubled), a
remove whose entry is gone reports it deleted.

Two admins at once: every list read carries the list's version (its ETag), which `Allowlists` remembers per
list; each change sends it as `If-Match` (unless told otherwise), so a change to a list that changed since
it was read is refused with `AllowlistChanged` (a PreconditionFailed), which carries the list as it stands.
"""

from __future__ import annotations

from typing import Any, TypeVar

import httpx
from pydantic import ConfigDict, TypeAdapter, ValidationError, field_validator
from pydantic.dataclasses import dataclass

from app.netrules import EntryError, canonical_entry

from .answer_bytes import parse_list_bytes
from .errors import InvalidResponse, PreconditionFailed, UnansweredWrite
from .requests import AllowlistUpdateParams, EntryCreateParams, EntryUpdateParams
from .transport import ResendCheck, Transport, always_resend
from .wire import WireModel, problem


# A dataclass, not a WireModel: a list holds up to 100,000 of them, parsed on every load, and pydantic makes a
# slotted dataclass in two thirds of a model's time (no field set or dict per instance: ~120 ms, not ~190 ms,
# at 100,000 entries; tests/perf/bench_allowlist_table). Ids, cidrs and descriptions are mostly unique, so
# pydantic's string cache only costs a lookup each. Frozen and tolerant of unknown fields, as a WireModel.
@dataclass(frozen=True, slots=True, config=ConfigDict(extra="ignore", cache_strings=False))
class Entry:
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
    # Required: an answer without them is no allowlist, never an empty list that is off.
    enabled: bool
    entries: tuple[Entry, ...]
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


_Model = TypeVar("_Model", bound=WireModel)


def parse(model: type[_Model], data: Any, what: str) -> _Model:
    """One model from decoded JSON; InvalidResponse naming the field when the shape is wrong."""
    if not isinstance(data, dict):
        raise InvalidResponse(f"The server sent {what} that is not a JSON object.")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InvalidResponse(f"The server sent {what} the console cannot read ({problem(error)}).") from None


_ENTRY: TypeAdapter[Entry] = TypeAdapter(Entry)


def parse_entry(data: Any) -> Entry:
    """One entry from decoded JSON (an add's or an update's answer), as `parse` does a model."""
    if not isinstance(data, dict):
        raise InvalidResponse("The server sent an allowlist entry that is not a JSON object.")
    try:
        return _ENTRY.validate_python(data)
    except ValidationError as error:
        raise InvalidResponse(
            f"The server sent an allowlist entry the console cannot read ({problem(error)})."
        ) from None


def parse_projects(data: Any) -> tuple[Project, ...]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidResponse("The server's project list is not a list ({'data': [...]} was expected).")
    return tuple(parse(Project, item, "a project") for item in items)


class AllowlistChanged(PreconditionFailed):
    """412 on a change to an allowlist: the list changed since it was read. `current` is the list as it
    stands, sent with the refusal (None when the body did not carry a readable one), so the change can be
    shown against it and made again."""

    current: Allowlist | None = None

    @classmethod
    def of(cls, refused: PreconditionFailed) -> AllowlistChanged:
        changed = cls(
            refused.status, refused.message, refused.code, refused.param, refused.headers, refused.body
        )
        data = refused.body.get("current") if isinstance(refused.body, dict) else None
        try:
            changed.current = parse(Allowlist, data, "the current list") if isinstance(data, dict) else None
        except InvalidResponse:
            pass  # the refusal stands without it: the next read shows the list
        return changed


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

    async def _change(
        self,
        method: str,
        path: str,
        project_id: str | None,
        if_match: str | bool | None,
        resend_unanswered: ResendCheck,
        json_body: object = None,
        force: bool = False,
    ) -> tuple[Any, httpx.Headers]:
        """Send one change to a list, on the version `if_match` names, never retried on a status; a 412
        comes back as AllowlistChanged, read here, carrying the list as it stands."""
        try:
            return await self._transport.request(
                method,
                path,
                key="admin",
                json_body=json_body,
                params={"force": "true"} if force else None,
                retries=0,
                resend_unanswered=resend_unanswered,
                headers=self._precondition(project_id, if_match),
            )
        except PreconditionFailed as refused:
            raise AllowlistChanged.of(refused) from None

    async def set_enabled(
        self,
        enabled: bool,
        project_id: str | None = None,
        force: bool = False,
        if_match: str | bool | None = None,
    ) -> Allowlist:
        try:
            content, response = await self._transport.request_bytes(
                "PATCH",
                self._path(project_id),
                key="admin",
                json_body=AllowlistUpdateParams(enabled=enabled),
                params={"force": "true"} if force else None,
                retries=0,
                resend_unanswered=always_resend,
                headers=self._precondition(project_id, if_match),
            )
        except PreconditionFailed as refused:
            raise AllowlistChanged.of(refused) from None
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

        body = EntryCreateParams(cidr=cidr)
        if description:
            body["description"] = description
        if expires_at is not None:
            body["expires_at"] = int(expires_at)
        path = f"{self._path(project_id)}/entries"
        try:
            result, headers = await self._change("POST", path, project_id, if_match, not_listed_yet, body)
        except UnansweredWrite:
            if already:  # the first attempt went through: that entry, never a second one
                return already[0]
            raise
        self._saw(project_id, headers)
        return parse_entry(result)

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
        body = EntryUpdateParams(expires_at=None if expires_at is None else int(expires_at))
        if description is not None:
            body["description"] = description
        path = f"{self._path(project_id)}/entries/{entry_id}"
        result, headers = await self._change("PATCH", path, project_id, if_match, always_resend, body, force)
        self._saw(project_id, headers)
        return parse_entry(result)

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

        path = f"{self._path(project_id)}/entries/{entry_id}"
        try:
            result, headers = await self._change(
                "DELETE", path, project_id, if_match, still_listed, force=force
            )
        except UnansweredWrite:
            if gone:  # the first attempt went through
                return Deleted(id=entry_id, deleted=True)
            raise
        self._saw(project_id, headers)
        return parse(Deleted, result, "the answer to a removal")

    async def projects(self) -> tuple[Project, ...]:
        result, _ = await self._transport.request(
            "GET", f"/organizations/{self.org_id}/projects", key="admin"
        )
        return parse_projects(result)
