"""`service-console limits get|set`: a project's rate limits (requests and tokens per minute, for the project
and per model) from a terminal, a script or CI, with the allowlist commands' environment, profiles, exit
codes and `--json`."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import run_command
from .outcome import CommandFailed, Exit, Outcome

if TYPE_CHECKING:
    from app.api.client import ServiceClient
    from app.api.rate_limits import RateLimit


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="service-console limits",
        description="A project's rate limits: requests and tokens per minute, for the whole project or one "
        "model. Keys come from the profile's keychain entry or from $SERVICE_ADMIN_KEY, never from an argument.",
        epilog="Exit codes: 0 done; 2 usage; 3 authentication or permission; 4 network.",
    )
    made.add_argument("command", choices=("get", "set"))
    made.add_argument("--project", required=True, help="the project (its id or name)")
    made.add_argument("--model", help="set: the model the limit holds (default: the whole project)")
    made.add_argument("--rpm", help="set: requests per minute, or 'none' to remove the limit")
    made.add_argument("--tpm", help="set: tokens per minute, or 'none' to remove the limit")
    made.add_argument("--profile", help="a profile saved in the console (its name or id)")
    made.add_argument("--home", type=Path, help="the console's --home folder, if it was started with one")
    made.add_argument("--json", action="store_true", help="print one JSON object: the project's limits")
    return made


def count_of(option: str, text: str) -> int | None:
    if text == "none":
        return None
    if not text.isdigit() or int(text) < 1:
        raise CommandFailed(
            Exit.USAGE, f"{option} takes a whole number of at least 1, or none, not “{text}”."
        )
    return int(text)


def line_of(limit: RateLimit) -> str:
    def shown(value: int | None) -> str:
        return "no limit" if value is None else f"{value:,}"

    return (
        f"{limit.model or 'the whole project':<28}  requests/min: {shown(limit.max_requests_per_1_minute):<12}"
        f"  tokens/min: {shown(limit.max_tokens_per_1_minute)}"
    )


async def _project_id(client: ServiceClient, wanted: str) -> str:
    projects = await client.allowlists.projects()
    found = next((p for p in projects if wanted in (p.id, p.name)), None)
    if found is None:
        names = ", ".join(p.label for p in projects) or "none"
        raise CommandFailed(Exit.USAGE, f"No project “{wanted}” in the organization (projects: {names}).")
    return found.id


async def run(args: argparse.Namespace) -> Outcome:
    from app.api.client import ServiceClient

    from .target import resolve

    counts: dict[str, Any] = {}
    if args.command == "set":
        if args.rpm is None and args.tpm is None:
            raise CommandFailed(Exit.USAGE, "set: give --rpm, --tpm or both.")
        if args.rpm is not None:
            counts["max_requests_per_1_minute"] = count_of("--rpm", args.rpm)
        if args.tpm is not None:
            counts["max_tokens_per_1_minute"] = count_of("--tpm", args.tpm)
    elif args.model or args.rpm or args.tpm:
        raise CommandFailed(Exit.USAGE, "get takes only --project.")
    target = resolve(args.profile, args.home)
    async with ServiceClient(target.settings, target.org_id) as client:
        project_id = await _project_id(client, args.project)
        if counts:
            limit_id = f"rl-{args.model}" if args.model else "rl-project"
            limits = await client.rate_limits.list(project_id)
            if not any(limit.id == limit_id for limit in limits):
                models = ", ".join(limit.model for limit in limits if limit.model)
                raise CommandFailed(Exit.USAGE, f"No model “{args.model}” here (models: {models}).")
            await client.rate_limits.set(project_id, limit_id, counts)
        limits = await client.rate_limits.list(project_id)
    return Outcome(
        [line_of(limit) for limit in limits],
        {"project_id": project_id, "rate_limits": [limit.model_dump() for limit in limits]},
    )


def main(argv: list[str]) -> int:
    return run_command(argv, parser().parse_args, run)
