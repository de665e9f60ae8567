"""The organizations' CA certificates for mutual TLS, and where each is active (the organization, projects).

Reads come from memory: the gateway asks, on every request of an organization that has one active, which
certificates are in force for it. Every change is written with its audit event in one transaction on the
store's writer, then mirrored in memory; the limit and the "still active" check run on the writer, against
the rows as they stand, so two uploads at once cannot both pass a limit that each would break after the other.
The server hands `trust` the TLS context it serves with, so a certificate uploaded is trusted at the next
handshake (no restart).
"""

from __future__ import annotations

import sqlite3
import ssl
from collections.abc import Iterable

from app.sandbox.contract.admin import AuditType
from app.sandbox.ids import new_id
from app.sandbox.store.audit import AuditRecord, Origin, insert
from app.sandbox.store.certificate_record import CaCertificate
from app.sandbox.store.database import Database

MAX_CERTIFICATES = 50  # per organization, as the hosted service allows


class TooManyCertificates(Exception):
    pass


class DuplicateCertificate(Exception):
    def __init__(self, existing_id: str) -> None:
        super().__init__(existing_id)
        self.existing_id = existing_id


class CertificateStillActive(Exception):
    def __init__(self, places: list[str]) -> None:
        super().__init__(", ".join(places))
        self.places = places  # "organization", or the project ids where it is active


class UnknownCertificates(Exception):
    def __init__(self, ids: list[str]) -> None:
        super().__init__(", ".join(ids))
        self.ids = ids


Place = tuple[str, str]  # (scope, owner id): ("organization", org id) or ("project", project id)


class Certificates:
    """The certificates of one store. Changed only through this object (one process, the server's)."""

    def __init__(self, database: Database) -> None:
        self._database = database
        self._by_id: dict[str, CaCertificate] = {}
        self._active: dict[Place, frozenset[str]] = {}
        self._in_force: dict[tuple[str, str | None], tuple[CaCertificate, ...]] = {}
        self._contexts: list[ssl.SSLContext] = []
        self.any_active = False  # the gateway's fast path: no organization asks for certificates

        self._writes = 0  # changes made through this object: a reload that overlaps one is dropped
        self.reload()

    def reload(self) -> None:
        """Read the certificates and activations again: the dashboard (another process) may have changed
        them. The server's keeper calls it every flush interval (a few rows; a query every few seconds)."""
        writes = self._writes

        def load(
            db: sqlite3.Connection,
        ) -> tuple[list[tuple[str, str, str, str, int]], list[tuple[str, str, str]]]:
            rows = db.execute("SELECT id, org_id, name, pem, created_at FROM certificates").fetchall()
            return [tuple(row) for row in rows], [
                tuple(row) for row in db.execute("SELECT * FROM certificate_activations")
            ]

        rows, activations = self._database.read(load)
        by_id = {
            row[0]: self._by_id[row[0]]
            if row[0] in self._by_id and self._by_id[row[0]].name == row[2]
            else CaCertificate.of(*row)
            for row in rows
        }
        active: dict[Place, frozenset[str]] = {}
        for certificate_id, scope, owner_id in activations:
            active[(scope, owner_id)] = active.get((scope, owner_id), frozenset()) | {certificate_id}
        if writes != self._writes or (by_id.keys() == self._by_id.keys() and active == self._active):
            return  # a change of ours came in between (it is newer), or nothing changed
        new = [c for i, c in by_id.items() if i not in self._by_id]
        self._by_id, self._active = by_id, active
        self._changed()
        for context in self._contexts:
            for certificate in new:
                self._trust_one(context, certificate)

    # -- reads ------------------------------------------------------------------------------------------

    def listed(self, org_id: str) -> list[CaCertificate]:
        """The organization's certificates, newest first."""
        found = [c for c in self._by_id.values() if c.org_id == org_id]
        return sorted(found, key=lambda c: (c.created_at, c.id), reverse=True)

    def get(self, org_id: str, certificate_id: str) -> CaCertificate | None:
        found = self._by_id.get(certificate_id)
        return found if found is not None and found.org_id == org_id else None

    def active_at(self, scope: str, owner_id: str) -> frozenset[str]:
        return self._active.get((scope, owner_id), frozenset())

    def places(self, certificate_id: str) -> list[Place]:
        """Where the certificate is active: the organization first, then projects by id."""
        found = [place for place, ids in self._active.items() if certificate_id in ids]
        return sorted(found, key=lambda place: (place[0] != "organization", place[1]))

    def in_force(self, org_id: str, project_id: str | None) -> tuple[CaCertificate, ...]:
        """The certificates a request of this organization (and project) must chain to, one of them: those
        active for the organization and those active for the project. Empty: no certificate is asked for."""
        wanted = (org_id, project_id)
        found = self._in_force.get(wanted)
        if found is None:
            ids = self.active_at("organization", org_id)
            if project_id is not None:
                ids = ids | self.active_at("project", project_id)
            found = tuple(sorted((self._by_id[i] for i in ids if i in self._by_id), key=lambda c: c.id))
            self._in_force[wanted] = found
        return found

    # -- the TLS context ---------------------------------------------------------------------------------

    def trust(self, context: ssl.SSLContext) -> None:
        """Trust every certificate uploaded, now and later, at `context`'s handshakes, and ask clients for
        a certificate once there is one. Which certificate is in force for a request is the gateway's
        decision (a deleted or inactive one is trusted at the handshake until a restart, never admitted)."""
        self._contexts.append(context)
        for certificate in self._by_id.values():
            self._trust_one(context, certificate)

    def _trust_one(self, context: ssl.SSLContext, certificate: CaCertificate) -> None:
        try:
            context.load_verify_locations(cadata=certificate.pem)
        except (ssl.SSLError, ValueError):  # checked on upload; a store edited by hand must not stop a start
            return
        if context.verify_mode == ssl.CERT_NONE:
            context.verify_mode = ssl.CERT_OPTIONAL

    # -- writes ------------------------------------------------------------------------------------------

    async def upload(
        self, org_id: str, name: str, pem: str, fingerprint: str, origin: Origin
    ) -> CaCertificate:
        now = self._database.now()
        certificate = CaCertificate.of(new_id("cert"), org_id, name, pem, now)

        def work(db: sqlite3.Connection) -> None:
            rows = db.execute("SELECT id, pem FROM certificates WHERE org_id = ?", (org_id,)).fetchall()
            for row in rows:
                if CaCertificate.of(row[0], org_id, "", row[1], 0).fingerprint == fingerprint:
                    raise DuplicateCertificate(row[0])
            if len(rows) >= MAX_CERTIFICATES:
                raise TooManyCertificates
            db.execute(
                "INSERT INTO certificates (id, org_id, name, pem, created_at) VALUES (?, ?, ?, ?, ?)",
                (certificate.id, org_id, name, pem, now),
            )
            after = {"id": certificate.id, "name": name, **certificate.details()}
            insert(
                db,
                AuditRecord(
                    AuditType.CERTIFICATE_CREATED, "organization", org_id, origin, certificate.id, None, after
                ),
                now,
            )

        await self._database.write(work)
        self._by_id[certificate.id] = certificate
        for context in self._contexts:
            self._trust_one(context, certificate)
        return certificate

    async def rename(self, org_id: str, certificate_id: str, name: str, origin: Origin) -> CaCertificate:
        current = self._by_id[certificate_id]
        now = self._database.now()

        def work(db: sqlite3.Connection) -> None:
            db.execute("UPDATE certificates SET name = ? WHERE id = ?", (name, certificate_id))
            before, after = {"id": certificate_id, "name": current.name}, {"id": certificate_id, "name": name}
            record = AuditRecord(
                AuditType.CERTIFICATE_RENAMED, "organization", org_id, origin, certificate_id, before, after
            )
            insert(db, record, now)

        await self._database.write(work)
        renamed = CaCertificate(certificate_id, org_id, name, current.pem, current.created_at, current.parsed)
        self._by_id[certificate_id] = renamed
        self._changed()
        return renamed

    async def delete(self, org_id: str, certificate_id: str, origin: Origin) -> bool:
        """Remove an inactive certificate; False when the organization has none by that id."""
        now = self._database.now()

        def work(db: sqlite3.Connection) -> bool:
            row = db.execute(
                "SELECT name FROM certificates WHERE id = ? AND org_id = ?", (certificate_id, org_id)
            ).fetchone()
            if row is None:
                return False
            active = db.execute(
                "SELECT scope, owner_id FROM certificate_activations WHERE certificate_id = ?",
                (certificate_id,),
            ).fetchall()
            if active:
                raise CertificateStillActive([r[0] if r[0] == "organization" else r[1] for r in active])
            db.execute("DELETE FROM certificates WHERE id = ?", (certificate_id,))
            before = {"id": certificate_id, "name": row[0]}
            insert(
                db,
                AuditRecord(
                    AuditType.CERTIFICATE_DELETED, "organization", org_id, origin, certificate_id, before
                ),
                now,
            )
            return True

        deleted = await self._database.write(work)
        if deleted:
            self._by_id.pop(certificate_id, None)
            self._changed()
        return deleted

    async def set_active(
        self, org_id: str, place: Place, ids: Iterable[str], active: bool, origin: Origin
    ) -> list[CaCertificate]:
        """Activate (or deactivate) the certificates at one place, all or none; idempotent. The audit log
        gets one event per certificate whose state changed."""
        wanted = list(dict.fromkeys(ids))
        scope, owner_id = place
        now = self._database.now()
        kind = AuditType.CERTIFICATE_ACTIVATED if active else AuditType.CERTIFICATE_DEACTIVATED

        def work(db: sqlite3.Connection) -> frozenset[str]:
            marks = ",".join("?" * len(wanted))
            known = {
                row[0]
                for row in db.execute(
                    f"SELECT id FROM certificates WHERE org_id = ? AND id IN ({marks})", (org_id, *wanted)
                )
            }
            missing = [i for i in wanted if i not in known]
            if missing:
                raise UnknownCertificates(missing)
            for certificate_id in wanted:
                row = (certificate_id, scope, owner_id)
                if active:
                    changed = db.execute(
                        "INSERT OR IGNORE INTO certificate_activations VALUES (?, ?, ?)", row
                    )
                else:
                    changed = db.execute(
                        "DELETE FROM certificate_activations WHERE certificate_id = ? AND scope = ? "
                        "AND owner_id = ?",
                        row,
                    )
                if changed.rowcount:
                    state = {"id": certificate_id, "active": active}
                    insert(db, AuditRecord(kind, scope, owner_id, origin, certificate_id, None, state), now)
            rows = db.execute(
                "SELECT certificate_id FROM certificate_activations WHERE scope = ? AND owner_id = ?",
                (scope, owner_id),
            )
            return frozenset(r[0] for r in rows)

        self._active[place] = await self._database.write(work)
        self._changed()
        return [self._by_id[i] for i in wanted]

    def _changed(self) -> None:
        self._writes += 1
        self._active = {place: ids for place, ids in self._active.items() if ids}
        self._in_force = {}
        self.any_active = bool(self._active)
