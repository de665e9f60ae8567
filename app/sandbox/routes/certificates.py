"""The Admin API's certificates for mutual TLS: upload, list, retrieve, rename, delete, and activate or
deactivate for the organization or one project, in the hosted service's shapes (docs/contract.md).

Every change is written to the audit log with the change; a refusal (the limit, a duplicate, deleting one
still active, an unknown id) by a write of its own, as the allowlists' are.
"""

from __future__ import annotations

from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.sandbox.contract.admin import AuditType
from app.sandbox.contract.certificates import (
    CertificateGetQuery,
    CertificateListQuery,
    CertificateRename,
    CertificateToggle,
    CertificateUpload,
)
from app.sandbox.contract.validate import parse_json_body, validate, validate_query
from app.sandbox.errors import ServiceError, quote
from app.sandbox.routes.admin import _context, _origin
from app.sandbox.store.aggregates import Store
from app.sandbox.store.audit import AuditRecord, Origin
from app.sandbox.store.certificate_record import CaCertificate, CertificateProblem, fingerprint_of, parse_ca
from app.sandbox.store.certificates import (
    MAX_CERTIFICATES,
    CertificateStillActive,
    DuplicateCertificate,
    Place,
    TooManyCertificates,
    UnknownCertificates,
)

T = TypeVar("T")


def _not_found(certificate_id: str) -> ServiceError:
    return ServiceError(
        404, f"No certificate '{quote(certificate_id)}' in this organization.", "certificate_not_found"
    )


class CertificateRoutes:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.certificates = store.certificates

    def _caller(self, request: Request) -> tuple[str, Origin]:
        org_id = request.path_params["org_id"]
        return org_id, _origin(_context(request, org_id), False)

    def _place(self, request: Request, org_id: str) -> Place:
        project_id = request.path_params.get("project_id")
        if project_id is None:
            return "organization", org_id
        if self.store.organizations.project_org(project_id) != org_id:
            raise ServiceError(
                404,
                f"No project '{quote(project_id)}' in organization '{quote(org_id)}'.",
                "project_not_found",
            )
        return "project", project_id

    def _json(self, certificate: CaCertificate, place: Place | None, content: bool = False) -> dict[str, Any]:
        """The hosted object: `certificate` alone, `organization.certificate` or
        `organization.project.certificate` with `active` where a place is named; `active_in` (this service's)
        lists every place it is active at, for a console that shows them all from one read."""
        body: dict[str, Any] = {
            "object": "certificate",
            "id": certificate.id,
            "name": certificate.name or None,
            "created_at": certificate.created_at,
            "certificate_details": certificate.details(content),
        }
        if place is not None:
            scope, owner_id = place
            kind = "organization" if scope == "organization" else "organization.project"
            body["object"] = f"{kind}.certificate"
            body["active"] = certificate.id in self.certificates.active_at(scope, owner_id)
        body["active_in"] = [
            {"scope": scope, "project_id": owner_id if scope == "project" else None}
            for scope, owner_id in self.certificates.places(certificate.id)
        ]
        return body

    async def upload(self, request: Request) -> Response:
        org_id, origin = self._caller(request)
        body = validate(CertificateUpload, parse_json_body(await request.body()))
        try:
            parsed = parse_ca(body.certificate, self.store.clock())
        except CertificateProblem as problem:
            raise ServiceError(400, str(problem), "invalid_certificate", "certificate") from None
        name = body.name or ""

        async def change() -> CaCertificate:
            try:
                return await self.certificates.upload(
                    org_id, name, body.certificate, fingerprint_of(parsed), origin
                )
            except DuplicateCertificate as duplicate:
                raise ServiceError(
                    409,
                    f"This certificate is already uploaded as {duplicate.existing_id}.",
                    "duplicate_certificate",
                    "certificate",
                ) from None
            except TooManyCertificates:
                raise ServiceError(
                    400,
                    f"The organization already holds the maximum of {MAX_CERTIFICATES} certificates: "
                    "delete one first.",
                    "too_many_certificates",
                    "certificate",
                ) from None

        wanted = {"name": name, "fingerprint_sha256": fingerprint_of(parsed)}
        refused = AuditRecord(AuditType.CERTIFICATE_CREATED, "organization", org_id, origin, after=wanted)
        certificate = await self.store.audit.recorded(refused, change())
        return JSONResponse(self._json(certificate, None))

    async def list_certificates(self, request: Request) -> Response:
        org_id, _ = self._caller(request)
        place = self._place(request, org_id)
        query = validate_query(CertificateListQuery, request.query_params.multi_items())
        found = self.certificates.listed(org_id)
        if query.order == "asc":
            found.reverse()
        if query.after is not None:
            ids = [c.id for c in found]
            found = found[ids.index(query.after) + 1 :] if query.after in ids else []
        data = [self._json(c, place) for c in found[: query.limit]]
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "first_id": data[0]["id"] if data else None,
                "last_id": data[-1]["id"] if data else None,
                "has_more": len(found) > query.limit,
            }
        )

    def _found(self, org_id: str, request: Request) -> CaCertificate:
        certificate_id = request.path_params["certificate_id"]
        certificate = self.certificates.get(org_id, certificate_id)
        if certificate is None:
            raise _not_found(certificate_id)
        return certificate

    async def retrieve(self, request: Request) -> Response:
        org_id, _ = self._caller(request)
        query = validate_query(CertificateGetQuery, request.query_params.multi_items())
        return JSONResponse(self._json(self._found(org_id, request), None, query.include == "content"))

    async def rename(self, request: Request) -> Response:
        org_id, origin = self._caller(request)
        name = validate(CertificateRename, parse_json_body(await request.body())).name
        certificate = await self.certificates.rename(org_id, self._found(org_id, request).id, name, origin)
        return JSONResponse(self._json(certificate, None))

    async def delete(self, request: Request) -> Response:
        org_id, origin = self._caller(request)
        certificate_id = request.path_params["certificate_id"]

        async def change() -> bool:
            try:
                return await self.certificates.delete(org_id, certificate_id, origin)
            except CertificateStillActive as active:
                raise ServiceError(
                    409,
                    f"The certificate is still active ({', '.join(active.places)}): deactivate it "
                    "for the organization and every project first.",
                    "certificate_active",
                ) from None

        refused = AuditRecord(AuditType.CERTIFICATE_DELETED, "organization", org_id, origin, certificate_id)
        if not await self.store.audit.recorded(refused, change()):
            raise _not_found(certificate_id)
        return JSONResponse({"object": "certificate.deleted", "id": certificate_id, "deleted": True})

    async def activate(self, request: Request) -> Response:
        return await self._toggle(request, True)

    async def deactivate(self, request: Request) -> Response:
        return await self._toggle(request, False)

    async def _toggle(self, request: Request, active: bool) -> Response:
        org_id, origin = self._caller(request)
        place = self._place(request, org_id)
        ids = validate(CertificateToggle, parse_json_body(await request.body())).certificate_ids

        async def change() -> list[CaCertificate]:
            try:
                return await self.certificates.set_active(org_id, place, ids, active, origin)
            except UnknownCertificates as unknown:
                raise ServiceError(
                    404,
                    f"No certificate {', '.join(map(quote, unknown.ids))} in this organization; "
                    "nothing was changed.",
                    "certificate_not_found",
                    "certificate_ids",
                ) from None

        kind = AuditType.CERTIFICATE_ACTIVATED if active else AuditType.CERTIFICATE_DEACTIVATED
        refused = AuditRecord(
            kind, place[0], place[1], origin, after={"certificate_ids": ids, "active": active}
        )
        changed = await self.store.audit.recorded(refused, change())
        return JSONResponse({"object": "list", "data": [self._json(c, place) for c in changed]})
