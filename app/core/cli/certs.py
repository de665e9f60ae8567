"""`service-console certs ...`: the organization's certificates for mutual TLS from a terminal, a script or CI.

The same environment, profiles, exit codes and `--json` as `service-console allowlist` (app/core/cli); the
lockout guard is the window's (app.core.security.certificates): activating a certificate that this machine's
client certificate was not issued by ends in exit 1 unless `--force`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.security.certificates import (
    CertificateFileError,
    day_of,
    expiry_warning,
    lockout_reason,
    read_pem,
)

from . import run_command
from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.api.mtls import Certificate

COMMANDS = ("list", "upload", "activate", "deactivate", "delete")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console certs",
        description="The organization's CA certificates for mutual TLS, for scripts and CI: while one is "
        "active for the organization or a project, requests there need a client certificate it issued. "
        "Keys come from the profile's keychain entry or from $SERVICE_ADMIN_KEY, never from an argument.",
        epilog="Exit codes: 0 done; 1 refused by the lockout guard (nothing changed); 2 usage; "
        "3 authentication or permission; 4 network.",
    )
    made.add_argument("command", choices=COMMANDS)
    made.add_argument("target", nargs="?", metavar="FILE|ID", help="upload: the PEM file; others: the id")
    made.add_argument("--profile", help="a profile saved in the console (its name or id)")
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    made.add_argument("--project", help="activate, deactivate, list: a project (its id or name)")
    made.add_argument("--name", default="", help="upload: the certificate's name (default: the file's)")
    made.add_argument("--json", action="store_true", help="print one JSON object (README: its fields)")
    made.add_argument("--force", action="store_true", help="activate even when it locks this machine out")
    return made


def certificate_json(certificate: Certificate, now: float) -> dict[str, Any]:
    details = certificate.certificate_details
    return {
        "id": certificate.id,
        "name": certificate.name,
        "created_at": certificate.created_at,
        "subject": details.subject,
        "issuer": details.issuer,
        "fingerprint_sha256": details.fingerprint_sha256,
        "valid_at": details.valid_at,
        "expires_at": details.expires_at,
        "expiry_warning": expiry_warning(certificate, now),
        "active": certificate.active,
        "active_in": [place.model_dump() for place in certificate.active_in],
    }


def certificate_line(certificate: Certificate, now: float) -> str:
    details = certificate.certificate_details
    places = ", ".join(p.project_id or "organization" for p in certificate.active_in) or "inactive"
    warning = expiry_warning(certificate, now)
    expiry = f"expires {day_of(details.expires_at)}" + (f" ({warning})" if warning else "")
    return f"{certificate.id:<30}  {certificate.label:<28}  {expiry:<36}  {places}"


class CertificateCommands:
    def __init__(self, client: ServiceClient, args: argparse.Namespace) -> None:
        self.client = client
        self.args = args
        self.now = time.time()

    async def project_id(self) -> str | None:
        wanted = self.args.project
        if not wanted:
            return None
        projects = await self.client.allowlists.projects()
        found = next((p for p in projects if wanted in (p.id, p.name)), None)
        if found is None:
            names = ", ".join(p.label for p in projects) or "none"
            raise CommandFailed(Exit.USAGE, f"No project “{wanted}” in the organization (projects: {names}).")
        return found.id

    async def list_certificates(self) -> Outcome:
        project_id = await self.project_id()
        found = await self.client.certificates.list(project_id)
        lines = [f"{len(found)} certificate{'s' if len(found) != 1 else ''}"]
        lines += [certificate_line(c, self.now) for c in found]
        return Outcome(
            lines, {"project_id": project_id, "certificates": [certificate_json(c, self.now) for c in found]}
        )

    async def upload(self, file: str) -> Outcome:
        try:
            pem = read_pem(Path(file))
        except CertificateFileError as error:
            raise CommandFailed(Exit.USAGE, str(error)) from None
        made = await self.client.certificates.upload(pem, self.args.name or Path(file).stem)
        return Outcome(
            [f"Uploaded {made.label} ({made.id}); not active until activated."],
            certificate_json(made, self.now),
        )

    async def set_active(self, certificate_id: str, active: bool) -> Outcome:
        project_id = await self.project_id()
        found = await self.client.certificates.list(project_id)
        certificate = next((c for c in found if c.id == certificate_id), None)
        if certificate is None:
            raise CommandFailed(Exit.USAGE, f"No certificate {certificate_id} in the organization.")
        place = "the organization" if project_id is None else f"project {self.args.project}"
        if active and not self.args.force:
            settings = self.client.transport.settings
            in_force = [c for c in found if c.active_for(project_id)]
            cert = str(settings.client_cert) if settings.client_cert else ""
            why = lockout_reason(settings.base_url, cert, certificate, in_force, place)
            if why:
                raise CommandFailed(Exit.REFUSED_BY_GUARD, f"{why} Nothing was changed (--force overrides).")
        changed = await self.client.certificates.set_active([certificate_id], active, project_id)
        state = "active" if active else "no longer active"
        return Outcome(
            [f"{certificate.label} ({certificate_id}) is {state} for {place}."],
            {"project_id": project_id, "certificates": [certificate_json(c, self.now) for c in changed]},
        )

    async def delete(self, certificate_id: str) -> Outcome:
        await self.client.certificates.delete(certificate_id)
        return Outcome([f"Deleted {certificate_id}."], {"id": certificate_id, "deleted": True})


async def run(args: argparse.Namespace) -> Outcome:
    from app.api.client import ServiceClient

    from .target import resolve

    if not args.target and args.command != "list":
        what = "the PEM file" if args.command == "upload" else "the certificate's id"
        raise CommandFailed(Exit.USAGE, f"{args.command}: name {what}.")
    if args.target and args.command == "list":
        raise CommandFailed(Exit.USAGE, "list takes no argument.")
    target = resolve(args.profile, args.home)
    async with ServiceClient(target.settings, target.org_id) as client:
        commands = CertificateCommands(client, args)
        match args.command:
            case "list":
                return await commands.list_certificates()
            case "upload":
                return await commands.upload(args.target)
            case "activate" | "deactivate":
                return await commands.set_active(args.target, args.command == "activate")
            case "delete":
                return await commands.delete(args.target)
        raise CommandFailed(Exit.USAGE, f"Unknown command {args.command}.")


def main(argv: list[str]) -> int:
    return run_command(argv, lambda given: parser().parse_intermixed_args(given), run)
