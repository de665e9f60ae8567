"""`service-console keys list|create|revoke|rotate`: the organization's admin keys, or a project's keys
(`--project`), from a terminal, a script or CI, in the allowlist commands' environment and exit codes.

A created key's value goes to stdout once (or to the file `--value-out`, private, and then not to stdout),
nowhere else: not to stderr, not to a log. Revoking the admin key this command runs with is refused with
exit 1 unless `--force`, as the lockout guard refuses a change that would lock this machine out.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.security.key_views import PermissionsInvalid, ago, key_json, parse_permissions, successor_name

from . import run_command
from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.api.keys import ApiKey, CreatedKey

COMMANDS = ("list", "create", "revoke", "rotate")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console keys",
        description="The organization's admin keys, or a project's API keys (--project). The admin key comes "
        "from the profile's keychain entry or $SERVICE_ADMIN_KEY, never from an argument; a created key's "
        "value is printed once, or written to --value-out.",
        epilog="Exit codes: 0 done; 1 refused: revoking the key this command uses (--force overrides); "
        "2 usage; 3 authentication or permission; 4 network.",
    )
    made.add_argument("command", choices=COMMANDS)
    made.add_argument("key", nargs="?", metavar="KEY_ID", help="revoke, rotate: the key's id (or use --name)")
    made.add_argument("--profile", help="a profile saved in the console (its name or id)")
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    made.add_argument("--project", help="a project's keys (its id or name) instead of the admin keys")
    made.add_argument("--name", help="create: the new key's name; revoke, rotate: the key by its name")
    made.add_argument("--permissions", default="all", help="create: all, read_only, or models,responses,...")
    made.add_argument("--unused-days", type=float, help="list: only keys unused for this many days")
    made.add_argument(
        "--value-out", type=Path, help="create, rotate: write the new value to this file (0600)"
    )
    made.add_argument("--revoke-old", action="store_true", help="rotate: revoke the old key at once (leaked)")
    made.add_argument("--json", action="store_true", help="print one JSON object")
    made.add_argument("--force", action="store_true", help="revoke the key this command itself uses")
    return made


class KeyCommands:
    """One command against the admin keys or one project's keys."""

    def __init__(self, client: ServiceClient, args: argparse.Namespace) -> None:
        self.client = client
        self.args = args
        self.project_id: str | None = None

    async def scope(self) -> None:
        wanted = self.args.project
        if not wanted:
            return
        projects = await self.client.allowlists.projects()
        found = next((p for p in projects if wanted in (p.id, p.name)), None)
        if found is None:
            names = ", ".join(p.label for p in projects) or "none"
            raise CommandFailed(Exit.USAGE, f"No project “{wanted}” in the organization (projects: {names}).")
        self.project_id = found.id

    @property
    def where(self) -> dict[str, Any]:
        return {"scope": "project" if self.project_id else "organization", "project_id": self.project_id}

    async def list_keys(self) -> Outcome:
        keys = await self.client.keys.list(self.project_id)
        now = time.time()
        if self.args.unused_days is not None:
            from app.core.security.key_views import unused_for

            keys = tuple(unused_for(keys, self.args.unused_days, now))
        lines = [
            f"{key.id:<22}  {key.name[:24]:<24}  {key.redacted_value:<18}  last used {ago(key.last_used_at, now)}"
            for key in keys
        ]
        return Outcome(lines or ["no keys"], {**self.where, "keys": [key_json(key) for key in keys]})

    async def find(self) -> ApiKey:
        keys = await self.client.keys.list(self.project_id)
        wanted_id, wanted_name = self.args.key, self.args.name
        if not wanted_id and not wanted_name:
            raise CommandFailed(Exit.USAGE, f"{self.args.command}: name the key by its id or with --name.")
        found = [key for key in keys if key.id == wanted_id or (wanted_name and key.name == wanted_name)]
        if not found:
            raise CommandFailed(Exit.USAGE, f"No key “{wanted_id or wanted_name}” here.")
        if len(found) > 1:
            raise CommandFailed(Exit.USAGE, f"{len(found)} keys are named “{wanted_name}”: give the id.")
        return found[0]

    async def create(self) -> Outcome:
        if not self.args.name:
            raise CommandFailed(Exit.USAGE, "create: give the new key a --name.")
        try:
            permissions = parse_permissions(self.args.permissions)
        except PermissionsInvalid as error:
            raise CommandFailed(Exit.USAGE, str(error)) from None
        made = await self.client.keys.create(self.args.name, self.project_id, permissions)
        return self._shown_once(made, {})

    async def revoke(self) -> Outcome:
        key = await self.find()
        self._guard(key)
        await self.client.keys.revoke(key.id, self.project_id)
        return Outcome([f"Revoked {key.name} ({key.id})."], {**self.where, "revoked": key_json(key)})

    async def rotate(self) -> Outcome:
        old = await self.find()
        if self.args.revoke_old:
            self._guard(old)
        permissions = old.permissions if isinstance(old.permissions, str) else list(old.permissions)
        made = await self.client.keys.create(successor_name(old), self.project_id, permissions)
        extra: dict[str, Any] = {"old": key_json(old), "revoked_old": False}
        if self.args.revoke_old:
            await self.client.keys.revoke(old.id, self.project_id)
            extra["revoked_old"] = True
        return self._shown_once(made, extra)

    def _guard(self, key: ApiKey) -> None:
        if key.is_value(self.client.transport.settings.admin_key) and not self.args.force:
            raise CommandFailed(
                Exit.REFUSED_BY_GUARD,
                f"{key.name} ({key.id}) is the admin key this command runs with: revoking it locks this "
                "profile out of the Admin API. Nothing was changed (--force overrides).",
            )

    def _shown_once(self, made: CreatedKey, extra: dict[str, Any]) -> Outcome:
        """The new value on stdout (text: alone on its line; --json: as `value`), or in --value-out only."""
        out: Path | None = self.args.value_out
        payload: dict[str, Any] = {"id": made.key.id, **extra}
        if out is not None:
            from app.common.fileio import write_atomically

            write_atomically(out, made.value + "\n", mode=0o600, make_folder=False)
            payload["value_out"] = str(out)
            return Outcome([f"{made.key.name} ({made.key.id}): its value is in {out}."], payload)
        payload["value"] = made.value
        return Outcome([made.value], payload)


async def run(args: argparse.Namespace) -> Outcome:
    from app.api.client import ServiceClient

    from .target import resolve

    if args.command in ("list", "create") and args.key:
        raise CommandFailed(Exit.USAGE, f"{args.command} takes no key id.")
    target = resolve(args.profile, args.home)
    async with ServiceClient(target.settings, target.org_id) as client:
        commands = KeyCommands(client, args)
        await commands.scope()
        match args.command:
            case "list":
                return await commands.list_keys()
            case "create":
                return await commands.create()
            case "revoke":
                return await commands.revoke()
            case "rotate":
                return await commands.rotate()
        raise CommandFailed(Exit.USAGE, f"Unknown command {args.command}.")


def main(argv: list[str]) -> int:
    return run_command(argv, lambda given: parser().parse_intermixed_args(given), run)
