"""`service-console allowlist ...`: the allowlists from a terminal, a script or CI, without Qt.

Parses the arguments, finds the service (app.core.cli.target), runs one command (app.core.cli.allowlist)
and turns every failure into one sentence and an exit code that scripts can rely on (app.core.cli.outcome).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from .outcome import CommandFailed, Exit, Outcome

COMMANDS = ("list", "add", "remove", "check", "enable", "disable", "whoami")
POLICY_COMMANDS = ("plan", "apply", "export")  # on a policy file (app.core.cli.policy)


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console allowlist",
        description="The IP allowlists of an organization and its projects, for scripts and CI. Keys come "
        "from the profile's keychain entry or from $SERVICE_ADMIN_KEY, never from an argument.",
        epilog="Exit codes: 0 done; 1 refused by the lockout guard (nothing changed); 2 usage; "
        "3 authentication or permission; 4 network (or not admitted within --wait-timeout).",
    )
    made.add_argument("command", choices=COMMANDS + POLICY_COMMANDS)
    made.add_argument(
        "targets",
        nargs="*",
        metavar="ENTRY",
        help="add: the address or range (default: this machine's, as the service sees it); remove: entries "
        "by address or id; check: the address (default: this machine's)",
    )
    made.add_argument("--profile", help="a profile saved in the console (its name or id)")
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    made.add_argument("--project", help="a project's list (its id or name) instead of the organization's")
    made.add_argument("--expires", help="add: the entry expires after 90s, 30m, 2h, 1d, 1w, or at a date")
    made.add_argument("--description", default="", help="add: what the entry is for")
    made.add_argument("--wait", action="store_true", help="add: wait until the service admits the address")
    made.add_argument("--wait-timeout", type=float, default=120.0, help="add --wait: give up after (s)")
    made.add_argument("--json", action="store_true", help="print one JSON object (README: its fields)")
    made.add_argument("--force", action="store_true", help="make a change the lockout guard refuses")
    made.add_argument(
        "--days", type=int, default=30, help="plan: the days of use shown for each entry it removes"
    )
    made.add_argument(
        "--plan", type=Path, help="apply: only if the plan is still the one `plan --json` saved to this file"
    )
    made.add_argument(
        "--for-this-job", action="store_true", help="add: mark the entry as this CI job's ($SERVICE_JOB_ID)"
    )
    made.add_argument(
        "--added-by-this-job",
        action="store_true",
        help="remove: the entries `add --for-this-job` made in this CI job, the lockout guard waived for them",
    )
    return made


async def run(args: argparse.Namespace) -> Outcome:
    from app.api.client import ServiceClient

    from .allowlist import AllowlistCommands, Options
    from .target import resolve

    if args.command in POLICY_COMMANDS:
        return await _run_policy(args)
    if args.command not in ("add", "remove", "check") and args.targets:
        raise CommandFailed(Exit.USAGE, f"{args.command} takes no entry.")
    if args.for_this_job and args.command != "add":
        raise CommandFailed(Exit.USAGE, "--for-this-job goes with add.")
    if args.added_by_this_job and (args.command != "remove" or args.targets):
        raise CommandFailed(Exit.USAGE, "--added-by-this-job goes with remove, and names no entry.")
    if args.command == "remove" and not args.targets and not args.added_by_this_job:
        raise CommandFailed(Exit.USAGE, "remove: name the entries (addresses, ranges or ids).")
    if args.command in ("add", "check") and len(args.targets) > 1:
        raise CommandFailed(Exit.USAGE, f"{args.command} takes one entry at a time.")
    target = resolve(args.profile, args.home)
    description = args.description
    if args.for_this_job:
        from .job import job_id, marked

        description = marked(description, job_id())
    options = Options(args.project, args.expires, description, args.wait, args.wait_timeout, args.force)
    first = args.targets[0] if args.targets else None
    async with ServiceClient(target.settings, target.org_id) as client:
        commands = AllowlistCommands(client, options)
        match args.command:
            case "whoami":
                return await commands.whoami()
            case "list":
                return await commands.list_entries()
            case "check":
                return await commands.check(first)
            case "add":
                return await commands.add(first)
            case "remove" if args.added_by_this_job:
                from .job import remove_job_entries

                return await remove_job_entries(commands)
            case "remove":
                return await commands.remove(list(args.targets))
            case "enable" | "disable":
                return await commands.set_enabled(args.command == "enable")
        raise CommandFailed(Exit.USAGE, f"Unknown command {args.command}.")


def failure_of(error: Exception) -> CommandFailed:
    """The exit code and sentence of an API error."""
    from app.api.errors import (
        ApiError,
        BadRequest,
        Conflict,
        ConnectionFailed,
        Forbidden,
        NotFound,
        PreconditionFailed,
        StatusError,
        Unauthorized,
    )

    if isinstance(error, CommandFailed):
        return error
    if isinstance(error, Conflict) and error.code == "would_block_caller":
        return CommandFailed(
            Exit.REFUSED_BY_GUARD, f"{error.message} Nothing was changed (--force overrides)."
        )
    if isinstance(error, Unauthorized | Forbidden):
        details = {"source_ip": error.source_ip} if error.source_ip else {}
        return CommandFailed(Exit.AUTH, str(error), details)
    if isinstance(error, ConnectionFailed):  # a timeout too
        return CommandFailed(Exit.NETWORK, str(error))
    if isinstance(error, PreconditionFailed):
        return CommandFailed(Exit.NETWORK, f"{error.message} (the list kept changing; try again)")
    if isinstance(error, BadRequest | NotFound | Conflict):
        return CommandFailed(Exit.USAGE, str(error))
    if isinstance(error, StatusError | ApiError):  # a 5xx, an answer that is not the API
        return CommandFailed(Exit.NETWORK, str(error))
    raise error


async def _run_policy(args: argparse.Namespace) -> Outcome:
    from app.api.client import ServiceClient

    from .policy import PolicyCommands
    from .target import resolve

    if len(args.targets) != 1:
        raise CommandFailed(Exit.USAGE, f"{args.command} takes one policy file.")
    if args.days < 1:
        raise CommandFailed(Exit.USAGE, "--days must be at least 1.")
    target = resolve(args.profile, args.home)
    path = Path(args.targets[0])
    async with ServiceClient(target.settings, target.org_id) as client:
        commands = PolicyCommands(client, args.days, args.force)
        if args.command == "plan":
            return await commands.plan(path)
        if args.command == "apply":
            return await commands.apply(path, args.plan)
        return await commands.export(path)


def main(argv: list[str]) -> int:
    args = parser().parse_intermixed_args(argv)  # a usage error exits 2 here, as argparse does
    try:
        outcome = asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        failed = failure_of(error)
        _print_failure(failed, args.json)
        return int(failed.code)
    if args.json:
        print(json.dumps(outcome.data, sort_keys=True))
    else:
        for line in outcome.lines:
            print(line)
    return int(outcome.code)


def _print_failure(failed: CommandFailed, as_json: bool) -> None:
    print(f"error: {failed.message}", file=sys.stderr)
    if as_json:
        error: dict[str, Any] = {"exit_code": int(failed.code), "kind": failed.code.name.lower()}
        print(json.dumps({"error": {**error, "message": failed.message, **failed.details}}, sort_keys=True))
