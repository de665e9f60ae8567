"""`service-console allowlist ...`: the allowlists from a terminal, a script or CI, without Qt.

Parses the arguments, finds the service (app.core.cli.target), runs one command (app.core.cli.allowlist)
and turns every failure into one sentence and an exit code that scripts can rely on (app.core.cli.outcome).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from .arguments import POLICY_COMMANDS, parser, refuse_keys, wants_json
from .outcome import CommandFailed, Exit, Outcome, printable

__all__ = ["failure_of", "main", "parser", "run", "run_command"]


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
    return run_command(argv, lambda given: parser().parse_intermixed_args(given), run)


def run_command(
    argv: list[str],
    parse: Callable[[list[str]], argparse.Namespace],
    run_parsed: Callable[[argparse.Namespace], Coroutine[Any, Any, Outcome]],
    show: Callable[[argparse.Namespace, Outcome], bool] | None = None,
) -> int:
    """One command of the command line from its arguments to its exit code, the same for every command
    (allowlist, keys, certs, usage, limits): a key typed as an argument refused unechoed, every failure one
    sentence and its code (and the JSON error under `--json`), the service's text printed escaped.
    `show`: prints the outcome its own way (usage's CSV) and says so; otherwise JSON or the lines."""
    as_json = wants_json(argv)
    try:
        refuse_keys(argv, os.environ)
        args = parse(argv)  # a usage error: exit 2 (argparse's own, or CommandFailed(USAGE))
        as_json = bool(getattr(args, "json", as_json))
        outcome = asyncio.run(run_parsed(args))
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        failed = failure_of(error)
        _print_failure(failed, as_json)
        return int(failed.code)
    if show is not None and show(args, outcome):
        pass
    elif as_json:
        print(json.dumps(outcome.data, sort_keys=True))
    else:
        for line in outcome.lines:  # the service's text (another admin's description) shown, never obeyed
            print(printable(line))
    return int(outcome.code)


def _print_failure(failed: CommandFailed, as_json: bool) -> None:
    print(f"error: {printable(failed.message)}", file=sys.stderr)
    if as_json:
        error: dict[str, Any] = {"exit_code": int(failed.code), "kind": failed.code.name.lower()}
        print(json.dumps({"error": {**error, "message": failed.message, **failed.details}}, sort_keys=True))
