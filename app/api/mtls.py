"""The Admin API's certificates for mutual TLS: typed models parsed at the edge, and the resource.

An organization uploads CA certificates (PEM); each can be active for the organization and for projects.
While one is active, requests there need a client certificate it issued (docs/contract.md, "Mutual TLS").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .admin import parse
from .errors import InvalidResponse
from .transport import Transport
from .wire import WireModel


class CertificateDetails(WireModel):
    valid_at: int | None = None
    expires_at: int | None = None
    subject: str = ""  # this service's fields: the hosted service sends only the two dates
    issuer: str = ""
    fingerprint_sha256: str = ""
    content: str | None = None  # the PEM, when asked for


class ActiveAt(WireModel):
    scope: Literal["organization", "project"]
    project_id: str | None = None


class Certificate(WireModel):
    id: str
    name: str | None = None
    created_at: int = 0
    certificate_details: CertificateDetails = CertificateDetails()
    active: bool | None = None  # at the place the request named (None: an upload or a retrieve)
    active_in: tuple[ActiveAt, ...] = ()  # every place it is active at (this service's)

    @property
    def label(self) -> str:
        return self.name or self.certificate_details.subject or self.id

    @property
    def active_for_organization(self) -> bool:
        return any(place.scope == "organization" for place in self.active_in)

    def active_for(self, project_id: str | None) -> bool:
        """Active where a request of this project (None: the organization's admin calls) is checked."""
        return self.active_for_organization or any(
            place.project_id == project_id for place in self.active_in if project_id is not None
        )


def _certificates(data: Any) -> tuple[Certificate, ...]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise InvalidResponse("The server's certificate list is not a list ({'data': [...]} was expected).")
    return tuple(parse(Certificate, item, "a certificate") for item in items)


class Certificates:
    """The organization's certificates; `project_id` names a project's activations instead."""

    PAGE = 100

    def __init__(self, transport: Transport, org_id: str) -> None:
        self._transport = transport
        self.org_id = org_id

    def _path(self, project_id: str | None = None) -> str:
        base = f"/organizations/{self.org_id}"
        return f"{base}/projects/{project_id}/certificates" if project_id else f"{base}/certificates"

    async def list(self, project_id: str | None = None) -> tuple[Certificate, ...]:
        """Every certificate (page after page), with `active` for the organization or the project."""
        found: list[Certificate] = []
        after: str | None = None
        while True:
            params = {"limit": str(self.PAGE), **({"after": after} if after else {})}
            result, _ = await self._transport.request(
                "GET", self._path(project_id), key="admin", params=params
            )
            page = _certificates(result)
            found += page
            if not (isinstance(result, dict) and result.get("has_more")) or not page:
                return tuple(found)
            after = page[-1].id

    async def upload(self, pem: str, name: str = "") -> Certificate:
        body = {"certificate": pem, **({"name": name} if name else {})}
        result, _ = await self._transport.request("POST", self._path(), key="admin", json_body=body)
        return parse(Certificate, result, "a certificate")

    async def retrieve(self, certificate_id: str, content: bool = False) -> Certificate:
        params = {"include[]": "content"} if content else None
        path = f"{self._path()}/{certificate_id}"
        result, _ = await self._transport.request("GET", path, key="admin", params=params)
        return parse(Certificate, result, "a certificate")

    async def delete(self, certificate_id: str) -> None:
        await self._transport.request("DELETE", f"{self._path()}/{certificate_id}", key="admin")

    async def set_active(
        self, certificate_ids: Sequence[str], active: bool, project_id: str | None = None
    ) -> tuple[Certificate, ...]:
        """Activate (or deactivate) at the organization or one project; all of them change, or none."""
        path = f"{self._path(project_id)}/{'activate' if active else 'deactivate'}"
        body = {"certificate_ids": list(certificate_ids)}
        result, _ = await self._transport.request("POST", path, key="admin", json_body=body)
        return _certificates(result)
