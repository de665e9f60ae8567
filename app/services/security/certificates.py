"""The organization's certificates for mutual TLS, for the Certificates dialog: read, upload, activate and
deactivate (at the organization or a project), delete, and a test CA made on this machine."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.api.errors import ApiError, Forbidden
from app.core.security.certificates import (
    CertificateFileError,
    CertificateRow,
    certificate_rows,
    lockout_reason,
    read_pem,
)
from app.core.security.trial_pki import TrialPki, make_trial_pki
from app.services.session.session import ConsoleSession

if TYPE_CHECKING:
    from app.api.mtls import Certificate


class CertificatesService(QObject):
    """The certificates as last read (`certificates`, each with where it is active) and the changes to them."""

    loaded = Signal()
    failed = Signal(str)
    busy_changed = Signal(bool)

    def __init__(self, session: ConsoleSession, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.certificates: tuple[Certificate, ...] = ()
        self.projects: dict[str, str] = {}  # project id -> its label
        self.error = ""
        self.busy = False

    @property
    def pki_folder(self) -> Path:
        return self.session.data_dir / "test-certificates"

    def _client_or_fail(self) -> bool:
        client = self.session.client
        if client is None or not client.has_key("admin"):
            self.error = "Certificates need the profile's admin key."
            self.failed.emit(self.error)
            return False
        return True

    def refresh(self) -> None:
        if self._client_or_fail():
            self.session.tasks.start("certificates.refresh", self._run(None))

    def upload(self, path: Path, name: str = "") -> None:
        try:
            pem = read_pem(path)
        except CertificateFileError as error:
            self.failed.emit(str(error))
            return
        if self._client_or_fail():
            self.session.tasks.start("certificates.change", self._run(self._upload(pem, name or path.stem)))

    def set_active(self, certificate_id: str, active: bool, project_id: str | None) -> None:
        if self._client_or_fail():
            self.session.tasks.start(
                "certificates.change", self._run(self._set_active(certificate_id, active, project_id))
            )

    def delete(self, certificate_id: str) -> None:
        if self._client_or_fail():
            self.session.tasks.start("certificates.change", self._run(self._delete(certificate_id)))

    def rows(self) -> list[CertificateRow]:
        return certificate_rows(self.certificates, self.projects, time.time())

    def lockout_reason(self, certificate_id: str, project_id: str | None) -> str | None:
        """Why activating the certificate there would lock this console out (None: it would not)."""
        profile = self.session.profile
        client = self.session.client
        certificate = next((c for c in self.certificates if c.id == certificate_id), None)
        if profile is None or client is None or certificate is None:
            return None
        place = (
            "the organization"
            if project_id is None
            else f"project {self.projects.get(project_id, project_id)}"
        )
        in_force = [c for c in self.certificates if c.active_for(project_id)]
        return lockout_reason(client.base_url, profile.client_cert, certificate, in_force, place)

    @property
    def plain_http(self) -> bool:
        """Whether this console's profile connects over plain HTTP (which carries no client certificate)."""
        client = self.session.client
        return client is not None and client.base_url.lower().startswith("http://")

    def make_trial_pki(self) -> TrialPki:
        return make_trial_pki(self.pki_folder)

    def use_in_profile(self, pki: TrialPki) -> None:
        """Put the test client certificate and key in the current profile, and connect with them."""
        profile = self.session.profile
        if profile is None:
            return
        saved = self.session.profiles.get(profile.id) or profile
        saved.client_cert, saved.client_key = str(pki.client_cert), str(pki.client_key)
        self.session.profiles.save(saved)
        self.session.tasks.start("session.activate", self.session.activate(profile.id))

    # -- the requests -----------------------------------------------------------------------------

    async def _run(self, change: Awaitable[str] | None) -> None:
        self._set_busy(True)
        try:
            if change is not None:
                self.session.bus.info(await change)
            try:
                await self._read()
            except Forbidden as refused:
                # A connection opened before the service asked for certificates carries none; the refusal
                # closed it, and a new one sends the profile's certificate: read once more.
                if refused.code != "client_certificate_required":
                    raise
                await self._read()
            self.error = ""
            self.loaded.emit()
        except ApiError as error:
            self.error = str(error)
            self.failed.emit(self.error)
        finally:
            self._set_busy(False)

    async def _read(self) -> None:
        client = self.session.client
        assert client is not None
        self.certificates = await client.certificates.list()
        try:
            self.projects = {p.id: p.label for p in await client.allowlists.projects()}
        except ApiError:
            self.projects = {}

    async def _upload(self, pem: str, name: str) -> str:
        client = self.session.client
        assert client is not None
        made = await client.certificates.upload(pem, name)
        return f"Uploaded “{made.label}” ({made.id}); it is not active until you activate it."

    async def _set_active(self, certificate_id: str, active: bool, project_id: str | None) -> str:
        client = self.session.client
        assert client is not None
        await client.certificates.set_active([certificate_id], active, project_id)
        place = (
            "the organization"
            if project_id is None
            else f"project {self.projects.get(project_id, project_id)}"
        )
        named = next((f"“{c.label}”" for c in self.certificates if c.id == certificate_id), certificate_id)
        return f"{named} is {'active' if active else 'no longer active'} for {place}."

    async def _delete(self, certificate_id: str) -> str:
        client = self.session.client
        assert client is not None
        await client.certificates.delete(certificate_id)
        return f"Deleted {certificate_id}."

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.busy_changed.emit(busy)
