"""Several changes to one allowlist sent as one (`POST .../ip_allowlist/batch`), and the refusals the
gateway recorded (`GET .../ip_allowlist/refused`).

A batch is made whole or not at all by the service, on the version it names (`If-Match`): a list changed
since it was read is a 412 (AllowlistChanged) and nothing changes. A service that has no batch endpoint
answers 404 or 405: BatchUnsupported, and nothing was sent that changed anything.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from .admin import Allowlist, Allowlists, parse
from .errors import InvalidResponse, NotFound, StatusError
from .transport import always_resend
from .wire import WireModel


class BatchAddParam(TypedDict):
    cidr: str
    description: NotRequired[str]
    expires_at: NotRequired[int | None]


class BatchUpdateParam(TypedDict):
    id: str
    expires_at: int | None
    description: str


class BatchParams(TypedDict, total=False):
    enabled: bool
    add: list[BatchAddParam]
    update: list[BatchUpdateParam]
    remove: list[str]


class BatchUnsupported(Exception):
    """The service offers no batch of changes: nothing was changed."""


class RefusedSource(WireModel):
    """Requests one source address had refused by a list in one minute (`minute`: Unix seconds)."""

    source_ip: str
    list: str  # the list that refused: "organization", "project" or "both"
    project_id: str | None = None
    path: str = ""  # the last path refused in that minute
    minute: int
    count: int = 1
    first_seen: int = 0
    last_seen: int = 0


class AdmittedSource(WireModel):
    """A source address a list admitted lately: how often, and the last second."""

    source_ip: str
    hits: int = 0
    last_seen: int = 0


class RefusedPage(WireModel):
    data: tuple[RefusedSource, ...] = ()
    next_since: int | None = None  # pass as `since` for the next page; None: nothing more yet
    has_more: bool = False


def _path(lists: Allowlists, project_id: str | None, tail: str) -> str:
    base = f"/organizations/{lists.org_id}"
    return (
        f"{base}/projects/{project_id}/ip_allowlist/{tail}" if project_id else f"{base}/ip_allowlist/{tail}"
    )


async def apply_batch(
    lists: Allowlists, changes: BatchParams, project_id: str | None, if_match: str, force: bool = False
) -> Allowlist:
    """Make `changes` on the list as it stood at version `if_match`, all or none; the list after."""
    path = _path(lists, project_id, "batch")
    try:
        result, headers = await lists._change(
            "POST", path, project_id, if_match, always_resend, changes, force
        )
    except StatusError as error:
        if (isinstance(error, NotFound) and error.code in (None, "not_found")) or error.status == 405:
            raise BatchUnsupported(error.message) from None
        raise
    allowlist = parse(Allowlist, result, "an allowlist")
    lists._saw(project_id, headers, allowlist.version)
    return allowlist


async def refused_page(
    lists: Allowlists, since: int = 0, project_id: str | None = None, limit: int = 100
) -> RefusedPage:
    """One page of the refusals recorded since `since` (Unix seconds), oldest first."""
    params = {"since": str(int(since)), "limit": str(limit)}
    result: Any
    result, _ = await lists._transport.request(
        "GET", _path(lists, project_id, "refused"), key="admin", params=params
    )
    return parse(RefusedPage, result, "a page of refused requests")


async def admitted_sources(
    lists: Allowlists, project_id: str | None, since: int
) -> tuple[AdmittedSource, ...] | None:
    """The sources the list admitted since `since`, busiest first; None from a service that keeps none."""
    try:
        result, _ = await lists._transport.request(
            "GET", _path(lists, project_id, "sources"), key="admin", params={"since": str(int(since))}
        )
    except NotFound:
        return None
    items = result.get("data") if isinstance(result, dict) else None
    if not isinstance(items, list):
        raise InvalidResponse("The server's admitted sources are not a list ({'data': [...]} was expected).")
    return tuple(parse(AdmittedSource, item, "an admitted source") for item in items)
