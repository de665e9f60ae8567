"""The Admin API's IP allowlists and projects: typed models parsed once at the edge, and the resource.

Models are frozen and ignore fields they do not know; a known field of the wrong shape is refused with an
InvalidResponse naming it. Writes whose connection drops before any answer are sent again only when a read
of the list shows it is safe: an add whose address is already listed returns that entry (never doubled), a
remove whose entry is gone reports it deleted.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import ValidationError, field_validator

from app.netrules import EntryError, canonical_entry

from .errors import InvalidResponse, UnansweredWrite
from .requests import AllowlistUpdate, EntryCreate
from .transport import Transport, always_resend
from .wire import WireModel, problem


class Entry(WireModel):
    """One entry of a list: an address or a range, in the service's canonical spelling."""

    id: str
    cidr: str
    description: str = ""
    created_at: float | None = None

    @field_validator("description", mode="before")
    @classmethod
    def _no_null_description(cls, value: Any) -> Any:
        return "" if value is None else value


class Allowlist(WireModel):
    """The list of the organization or of one project, with the address the service saw the caller at."""

    scope: str = "organization"
    enabled: bool = False
    entries: tuple[Entry, ...] = ()
    source_ip: str | None = None

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


class Allowlists:
    """The Admin API's IP allowlists; `project_id=None` means the organization's list."""

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    def _path(self, project_id: str | None) -> str:
        base = f"/organizations/{self.org_id}"
        return f"{base}/projects/{project_id}/ip_allowlist" if project_id else f"{base}/ip_allowlist"

    async def get(self, project_id: str | None = None) -> Allowlist:
        result, _ = await self._transport.request("GET", self._path(project_id), key="admin")
        return parse(Allowlist, result, "an allowlist")

    async def set_enabled(
        self, enabled: bool, project_id: str | None = None, force: bool = False
    ) -> Allowlist:
        params = {"force": "true"} if force else None
        result, _ = await self._transport.request(
            "PATCH",
            self._path(project_id),
            key="admin",
            json_body=AllowlistUpdate(enabled=enabled),
            params=params,
            retries=0,
            resend_unanswered=always_resend,
        )
        return parse(Allowlist, result, "an allowlist")

    async def add(self, cidr: str, description: str = "", project_id: str | None = None) -> Entry:
        """Add an entry. Sent again after a dropped connection only if the list does not hold it yet."""
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
        try:
            result, _ = await self._transport.request(
                "POST",
                f"{self._path(project_id)}/entries",
                key="admin",
                json_body=body,
                retries=0,
                resend_unanswered=not_listed_yet,
            )
        except UnansweredWrite:
            if already:  # the first attempt went through: that entry, never a second one
                return already[0]
            raise
        return parse(Entry, result, "an allowlist entry")

    async def remove(self, entry_id: str, project_id: str | None = None, force: bool = False) -> Deleted:
        """Remove an entry. Sent again after a dropped connection only while the entry is still listed."""
        gone: list[bool] = []

        async def still_listed() -> bool:
            listed = (await self.get(project_id)).entry(entry_id) is not None
            if not listed:
                gone.append(True)
            return listed

        params = {"force": "true"} if force else None
        try:
            result, _ = await self._transport.request(
                "DELETE",
                f"{self._path(project_id)}/entries/{entry_id}",
                key="admin",
                params=params,
                retries=0,
                resend_unanswered=still_listed,
            )
        except UnansweredWrite:
            if gone:  # the first attempt went through
                return Deleted(id=entry_id, deleted=True)
            raise
        return parse(Deleted, result, "the answer to a removal")

    async def projects(self) -> tuple[Project, ...]:
        result, _ = await self._transport.request(
            "GET", f"/organizations/{self.org_id}/projects", key="admin"
        )
        return parse_projects(result)
